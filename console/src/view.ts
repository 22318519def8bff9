// Building the console's pages: elements made with their text set as text (a player's name is
// never parsed as HTML), tables, a definition list, and the histogram drawn as SVG bars.
// Nothing here calls the API.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | undefined>;

/** An element `tag` with `attrs` (`on<event>` ones are listeners) and `children` (strings as text). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  el.append(...nodes(children));
  return el;
}

function nodes(children: Child[]): (Node | string)[] {
  return children.flatMap((c) => (c === null || c === undefined || c === false ? [] : [typeof c === "number" ? String(c) : c]));
}

/** A link to a console page (`#/...`). */
export function link(hash: string, text: string): HTMLAnchorElement {
  return h("a", { href: hash }, text);
}

/** A table of `rows` under `headings`, in a box that scrolls sideways on a narrow screen. */
export function table(headings: string[], rows: Child[][], empty = "Nothing yet."): HTMLElement {
  if (rows.length === 0) return h("p", { class: "muted" }, empty);
  return h(
    "div",
    { class: "scroll" },
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ...headings.map((t) => h("th", {}, t)))),
      h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, ...nodes([c])))))),
    ),
  );
}

/** A definition list of `pairs`; absent values are left out. */
export function facts(pairs: [string, Child][]): HTMLElement {
  return h("dl", { class: "facts" }, ...pairs.filter(([, v]) => v !== undefined && v !== null).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, ...nodes([v]))]));
}

/** The page's filters: the fragment's query (`#/boards?status=open`). */
export function hashParams(): URLSearchParams {
  return new URLSearchParams(location.hash.split("?")[1] ?? "");
}

/** A row of fields that, submitted, hands its non-empty fields (trimmed) to `go`. */
export function filterForm(go: (fields: URLSearchParams) => void, ...children: Child[]): HTMLFormElement {
  const form = h("form", { class: "filters" }, ...children);
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const fields = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === "string" && v.trim() !== "") fields.set(k, v.trim());
    go(fields);
  });
  return form;
}

/** A titled section of a page. */
export function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", { class: "card" }, h("h2", {}, title), ...children);
}

/** `el`, spread across the whole grid of its page. */
export function wide(el: HTMLElement): HTMLElement {
  el.classList.add("wide");
  return el;
}

/** A date-time shown in the reader's zone, to the second; the stored value in its title. */
export function when(at: string | null | undefined): Child {
  if (!at) return "—";
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  return h("time", { datetime: at, title: at }, d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" }));
}

/** A range of scores as text: one value, or `low–high`. */
export function range(low: number, high: number): string {
  return low === high ? String(low) : `${low}–${high}`;
}

/** Bars of `counts` (short labels under them, the range and count on hover), the tallest full height: a histogram as SVG. */
export function histogram(bars: { label: string; title: string; count: number }[]): Element {
  const ns = "http://www.w3.org/2000/svg";
  const width = 600;
  const height = 180;
  const base = height - 30;
  const most = Math.max(1, ...bars.map((b) => b.count));
  const step = width / Math.max(1, bars.length);
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "histogram");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "score distribution");
  bars.forEach((b, i) => {
    const tall = Math.max(b.count > 0 ? 2 : 0, Math.round((b.count / most) * (base - 16)));
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", String(i * step + 2));
    rect.setAttribute("y", String(base - tall));
    rect.setAttribute("width", String(Math.max(1, step - 4)));
    rect.setAttribute("height", String(tall));
    const tip = document.createElementNS(ns, "title");
    tip.textContent = `${b.title}: ${b.count} entries`;
    rect.append(tip);
    svg.append(rect);
    // Every label where they fit; every other one, or fewer, where they would overlap.
    if (i % Math.ceil(bars.length / 6) === 0) {
      const text = document.createElementNS(ns, "text");
      text.setAttribute("x", String(i * step + step / 2));
      text.setAttribute("y", String(height - 10));
      text.setAttribute("text-anchor", "middle");
      text.textContent = b.label;
      svg.append(text);
    }
  });
  return svg;
}
