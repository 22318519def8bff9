//! Finding a request's route among path templates: 404 when none matches the path, 405 when
//! one does but not with that method.

use lambda_http::http::Method;

use crate::error::ApiError;
use crate::request::segments;

/// One segment of a path template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    Literal(&'static str),
    Param(&'static str),
}

/// A route table: method and path template (`/leaderboards/{boardId}/scores`) to a route value.
/// Finding a request's route answers 404 when no template matches the path and 405 when one
/// does but not with that method.
pub struct Router<T> {
    routes: Vec<(Method, &'static str, Vec<Segment>, T)>,
}

/// The path parameters of a matched route.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathParams(Vec<(&'static str, String)>);

impl PathParams {
    /// The value of `{name}` in the template, as the path carried it.
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, v)| v.as_str())
    }
}

impl<T: Copy> Router<T> {
    /// A router over `(method, template, route)` entries; earlier entries win, so list literal
    /// paths (`/players/me`) before templates that would also match them.
    pub fn new(routes: &[(Method, &'static str, T)]) -> Router<T> {
        let routes = routes
            .iter()
            .map(|(m, template, t)| {
                let segs = segments(template)
                    .into_iter()
                    .map(
                        |s| match s.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                            Some(name) => Segment::Param(name),
                            None => Segment::Literal(s),
                        },
                    )
                    .collect();
                (m.clone(), *template, segs, *t)
            })
            .collect();
        Router { routes }
    }

    /// Every `(method, template)` the router serves.
    pub fn routes(&self) -> impl Iterator<Item = (&Method, &'static str)> {
        self.routes.iter().map(|(m, t, _, _)| (m, *t))
    }

    /// The route of a request's method and path.
    pub fn find(&self, method: &Method, path: &str) -> Result<(T, PathParams), ApiError> {
        let parts = segments(path);
        let mut path_known = false;
        for (m, _, template, route) in &self.routes {
            if template.len() != parts.len() {
                continue;
            }
            let mut params = Vec::new();
            let matched = template.iter().zip(&parts).all(|(seg, part)| match seg {
                Segment::Literal(l) => l == part,
                Segment::Param(name) => {
                    params.push((*name, (*part).to_owned()));
                    !part.is_empty()
                }
            });
            if !matched {
                continue;
            }
            if m == method {
                return Ok((*route, PathParams(params)));
            }
            path_known = true;
        }
        if path_known {
            Err(ApiError::method_not_allowed())
        } else {
            Err(ApiError::not_found("no such route"))
        }
    }
}
