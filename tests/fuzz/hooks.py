"""Schemathesis hooks of the fuzz test (tests/fuzz.rs): the rules of openapi.yaml that a JSON
Schema cannot state (between fields, against the clock, against the token or stored data),
applied to the cases Schemathesis means to be valid, so that "schema-valid data is accepted" is
checked on everything else. Cases meant to be invalid are sent as made. Each rule is the
document's, where it says it:

- a cursor is opaque and tamper-evident: one the API did not issue is 400, so a valid case
  carries none (the stateful phase follows the cursors the API issues, by the links);
- `playerIds` lists distinct ids, without `cursor`;
- `GET /admin/audit` takes exactly one of `playerId`, `pseudonym` and `leaderboardId`;
- a `sessionId` is a ULID whose time is at most 5 minutes ahead of the server's clock;
- a play names boards that exist (an id the run does not know is the seeded board's), each
  once, and fits every board it names: its score in the board's `minScore..maxScore`, its
  `durationSec` at least the board's `minDurationSec`, its `gameId` the board's (or, where no
  board names a game, given): the boards are the seeded one and those this run created;
- a play's `metadata` is at most 1,024 bytes, 4 deep, 64 keys, none empty, numbers that
  DynamoDB holds;
- a board's `minScore` is at most its `maxScore`, its `startsAt` and `endsAt` are from 1970
  on, its `endsAt` is after its `startsAt` (now when absent), and a recurring board has an
  `endsAt`;
- a play's `subscores` give every column of each of its boards, within its `max`, and no
  name no board has; a board's columns are on a `best` or `latest` board, their names unique
  and not `score`;
- a league is on a recurring board of one write shard, its `promote` and `relegate` at most
  half its `cohortSize`, and its id and tier names leave room for its cohorts' ids;
- a reward band has exactly one of `ranks` (`from` at most `to`) and `topPercent`;
- a profile names no email but the one its token proves (`FUZZ_PLAYER_EMAIL`);
- a display name holds no format or default-ignorable character beyond U+FFFF (tag characters,
  a few format controls): DisplayName's pattern leaves those to its description, since
  Schemathesis cannot draw strings outside a class of characters past U+FFFF.
"""

import json
import os
import time
import unicodedata
from datetime import datetime, timedelta, timezone

import schemathesis

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
EXAMPLE_METADATA = {"car": "red", "laps": [61.2, 60.8], "replayId": "r-01JD3"}


def ulid_time(ms):
    """The 10 characters of a ULID that encode `ms`."""
    return "".join(CROCKFORD[(ms >> (45 - 5 * i)) & 31] for i in range(10))


def timestamp(text):
    """An RFC 3339 timestamp, or None where it is not one."""
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        return None


def rfc3339(moment):
    """`moment` as the API writes timestamps: UTC, milliseconds."""
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def metadata_fits(value):
    """Whether `value` keeps the limits of openapi.yaml's Metadata."""
    keys = 0

    def walk(v, depth):
        nonlocal keys
        if isinstance(v, bool) or v is None or isinstance(v, str):
            return True
        if isinstance(v, (int, float)):
            return v == 0 or 1e-130 <= abs(v) < 1e126
        if depth > 4:
            return False
        if isinstance(v, list):
            return all(walk(x, depth + 1) for x in v)
        keys += len(v)
        return all(k != "" and walk(x, depth + 1) for k, x in v.items())

    try:
        size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError):
        return False
    # 1,024 bytes as the API counts them, less a margin: Python spells some numbers longer.
    return isinstance(value, dict) and size <= 960 and walk(value, 1) and keys <= 64


def printable_beyond_bmp(name):
    """`name` without the characters past U+FFFF that a name refuses (tags, format controls),
    or an example name where nothing printable is left."""
    kept = "".join(
        c for c in name
        if ord(c) <= 0xFFFF or not (unicodedata.category(c) == "Cf" or 0xE0000 <= ord(c) <= 0xE0FFF)
    )
    return kept if kept.strip() else "Zoë"


# The boards a play may name, by id: the seeded one and each one this run created.
BOARDS = {os.environ.get("FUZZ_BOARD", "fuzz-board"): {"minScore": 0, "maxScore": 9999999999}}


@schemathesis.hook
def after_call(context, case, response):
    if case.operation.label == "POST /leaderboards" and response.status_code == 201:
        board = response.json()
        BOARDS[board["leaderboardId"]] = board


def fit_play(label, case, body):
    """A play's boards, score, duration and game as the boards it names take them."""
    if label == "POST /sessions":
        named = body.get("leaderboardIds") if isinstance(body.get("leaderboardIds"), list) else []
        seeded = os.environ.get("FUZZ_BOARD", "fuzz-board")
        known = []
        for b in named:
            b = b if isinstance(b, str) and b in BOARDS else seeded
            if b not in known:
                known.append(b)
        if named:
            body["leaderboardIds"] = named = known
    else:
        named = [(case.path_parameters or {}).get("boardId")]
    boards = [BOARDS[b] for b in named if isinstance(b, str) and b in BOARDS]
    low = max([b.get("minScore", 0) for b in boards], default=0)
    high = min([b.get("maxScore", 9999999999) for b in boards], default=9999999999)
    if isinstance(body.get("score"), int) and low <= high:
        body["score"] = min(max(body["score"], low), high)
    shortest = max([b.get("minDurationSec") or 0 for b in boards], default=0)
    if shortest and not (isinstance(body.get("durationSec"), int) and body["durationSec"] >= shortest):
        body["durationSec"] = shortest
    fit_subscores(body, boards)
    games = {b["gameId"] for b in boards if b.get("gameId")}
    if len(games) == 1:
        body["gameId"] = games.pop()
    elif not body.get("gameId"):
        body["gameId"] = os.environ.get("FUZZ_GAME", "fuzz-game")


def fit_subscores(body, boards):
    """A play's `subscores` as its boards take them: a value for every column of each board
    (the given one, within the smallest `max` of that name), and no name no board has."""
    maxes = {}
    for board in boards:
        for column in board.get("columns") or []:
            name = column["name"]
            maxes[name] = min(maxes.get(name, column["max"]), column["max"])
    given = body.get("subscores") if isinstance(body.get("subscores"), dict) else {}
    if not maxes:
        body.pop("subscores", None)
        return
    fitted = {}
    for name, most in maxes.items():
        value = given.get(name)
        fitted[name] = min(value, most) if isinstance(value, int) and value >= 0 else 0
    body["subscores"] = fitted


def fix_columns(body):
    """A board's tiebreak columns as the API takes them: none on an `increment` board, names
    unique and not `score`."""
    columns = body.get("columns")
    if not isinstance(columns, list):
        return
    if body.get("operator") == "increment":
        body.pop("columns")
        return
    seen = set()
    for i, column in enumerate(columns):
        if not isinstance(column, dict) or not isinstance(column.get("name"), str):
            continue
        name, k = column["name"], i
        while name in seen or name == "score":
            name, k = f"c{k}", k + 1
        column["name"] = name
        seen.add(name)


def fix_league(body):
    """A league's board as the API takes it: recurring, of one write shard, no tournament
    rules, `promote` and
    `relegate` at most half a cohort, and room in 64 characters for its cohorts' ids
    (`<id>.<tier>.<number>`, the successor's id up to two characters longer)."""
    league = body.get("league")
    if not isinstance(league, dict):
        return
    if body.get("recurrence") in (None, "none"):
        body["recurrence"] = "weekly"
    body["writeShards"] = 1
    # A league places its players in cohorts: no tournament rules.
    for rule in ("joinRequired", "maxEntrants", "maxAttempts"):
        body.pop(rule, None)
    size = league.get("cohortSize")
    if isinstance(size, int):
        for field in ("promote", "relegate"):
            if isinstance(league.get(field), int):
                league[field] = min(league[field], size // 2)
    room = 64 - len(str(body.get("leaderboardId", ""))) - 2 - len("..999999")
    tiers = league.get("tiers")
    if isinstance(tiers, list) and all(isinstance(t, str) for t in tiers):
        cut = [t[:room] for t in tiers] if room > 0 else []
        if room <= 0 or len(set(cut)) != len(cut):
            body.pop("league")
        else:
            league["tiers"] = cut


def fix_recurrence(body):
    """A cron schedule as the API takes it: one that parses, in a zone of the IANA database,
    and matches again (a string the schema allows is rarely one)."""
    if isinstance(body.get("recurrence"), dict):
        body["recurrence"] = {"cron": "0 18 * * FRI", "timezone": "Europe/Berlin"}


def fix_rewards(body):
    """A board's reward bands as the API takes them: each with exactly one of `ranks` (in
    order) and `topPercent`."""
    bands = body.get("rewards")
    if not isinstance(bands, list):
        return
    for band in bands:
        if not isinstance(band, dict):
            continue
        ranks = band.get("ranks")
        if isinstance(ranks, list):
            band.pop("topPercent", None)
            if len(ranks) == 2 and all(isinstance(r, int) for r in ranks):
                band["ranks"] = sorted(ranks)
        elif "topPercent" not in band:
            band["ranks"] = [1, 1]


def fix_board(body):
    """A new board's fields in the order and pairings the API takes."""
    fix_recurrence(body)
    fix_rewards(body)
    fix_league(body)
    fix_columns(body)
    # Timestamps are from 1970 on (openapi.yaml's Timestamp).
    for field in ("startsAt", "endsAt"):
        moment = timestamp(body.get(field))
        if moment is not None and moment.tzinfo is not None and moment.year < 1970:
            body[field] = rfc3339(datetime.now(timezone.utc))
    low, high = body.get("minScore"), body.get("maxScore", 9999999999)
    if isinstance(low, int) and isinstance(high, int) and low > high:
        body["minScore"] = high
    starts = timestamp(body.get("startsAt")) or datetime.now(timezone.utc)
    ends = timestamp(body.get("endsAt"))
    recurring = body.get("recurrence") not in (None, "none")
    if (ends is None and recurring) or (ends is not None and ends <= starts):
        try:
            body["endsAt"] = rfc3339(starts + timedelta(days=7))
        except OverflowError:
            body.pop("endsAt", None)
            body["recurrence"] = "none"


@schemathesis.hook
def map_case(context, case):
    meta = case.meta
    # A case without its generation's mode (an example's) is meant to be valid too.
    if meta is not None and not meta.generation.mode.is_positive:
        return case
    label = case.operation.label
    if not isinstance(case.query, dict):
        case.query = {}
    query = case.query
    query.pop("cursor", None)
    if isinstance(query.get("playerIds"), str):
        query["playerIds"] = ",".join(dict.fromkeys(query["playerIds"].split(",")))
    subjects = ("playerId", "pseudonym", "leaderboardId")
    if label == "GET /admin/audit" and sum(k in query for k in subjects) != 1:
        for k in subjects:
            query.pop(k, None)
        query["playerId"] = os.environ.get("FUZZ_PLAYER", "fuzz-player")
    body = case.body
    if not isinstance(body, dict):
        return case
    session = body.get("sessionId")
    if isinstance(session, str) and len(session) == 26:
        body["sessionId"] = ulid_time(int(time.time() * 1000)) + session[10:]
    if label in ("POST /sessions", "POST /leaderboards/{boardId}/scores"):
        fit_play(label, case, body)
    if body.get("metadata") is not None and not metadata_fits(body["metadata"]):
        body["metadata"] = EXAMPLE_METADATA
    if isinstance(body.get("name"), str):
        body["name"] = printable_beyond_bmp(body["name"])
    if label == "POST /leaderboards":
        fix_board(body)
    proven = os.environ.get("FUZZ_PLAYER_EMAIL")
    if label == "PUT /players/me" and "email" in body and body["email"] != proven:
        body["email"] = proven
    return case
