//! GitHub's REST API over HTTP (ureq, rustls): pinned media type and API version, pages
//! followed by `Link: rel="next"` (on the --api-url's origin only, each URL once),
//! conditional requests, rate limits honoured (and said) and retries with backoff. The
//! token goes in one header, to the --api-url's origin, and nowhere else: never in a file,
//! a line of the cassette or a message.

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::store::{Fetched, Spool};
use crate::error::Result;

pub(crate) const ACCEPT: &str = "application/vnd.github+json";
pub(crate) const API_VERSION: &str = "2022-11-28";

/// How hard to try.
#[derive(Clone, Copy, Debug)]
pub struct Retry {
    /// Attempts after the first for 5xx answers and connection failures.
    pub attempts: u32,
    /// First backoff; doubled at each retry.
    pub base: Duration,
    /// The longest a rate limit may make a request wait before it is recorded as failed.
    pub max_wait: Duration,
}

impl Default for Retry {
    fn default() -> Self {
        Retry { attempts: 5, base: Duration::from_millis(1000), max_wait: Duration::from_secs(3600) }
    }
}

/// The primary rate limit as GitHub last reported it.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Budget {
    pub(crate) remaining: Option<u64>,
    /// Unix seconds when the budget resets.
    pub(crate) reset: Option<u64>,
}

pub(crate) struct Client {
    agent: ureq::Agent,
    base: String,
    origin: Option<Origin>,
    token: Option<String>,
    retry: Retry,
    pub(crate) budget: Mutex<Budget>,
    pub(crate) requests: std::sync::atomic::AtomicU64,
    max_pages: usize,
    note: Box<dyn Fn(&str) + Send + Sync>,
}

/// One HTTP answer.
struct Answer {
    status: u16,
    /// The body, unless it went into the spool (a 2xx page of a REST list).
    body: String,
    /// A 2xx answer whose body is not JSON: its first bytes (it is asked for again, and
    /// recorded as a failure when it stays so).
    not_json: Option<String>,
    next: Option<String>,
    etag: Option<String>,
    retry_after: Option<u64>,
    remaining: Option<u64>,
    reset: Option<u64>,
    /// Not taken by hindsight (a redirect not followed): asking again gives the same.
    refused: bool,
}

/// A status of hindsight's own for an answer it could not use although the server gave it
/// (a next page on another host, a 2xx body that is not JSON, a redirect not followed): a
/// failed capture.
pub(crate) const UNUSABLE: u16 = 502;

/// Same-origin redirects followed for one request.
pub(crate) const MAX_REDIRECTS: usize = 5;

impl Answer {
    /// An answer not taken: a failed capture whose body says why.
    fn refused(why: &str) -> Answer {
        Answer {
            status: UNUSABLE,
            body: serde_json::json!({ "message": why }).to_string(),
            not_json: None,
            next: None,
            etag: None,
            retry_after: None,
            remaining: None,
            reset: None,
            refused: true,
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The `rel="next"` URL of a `Link` header.
pub fn next_link(link: &str) -> Option<String> {
    link.split(',').find_map(|part| {
        let (url, params) = part.split_once(';')?;
        params.split(';').any(|p| p.trim().replace(' ', "") == "rel=\"next\"").then(|| url.trim().trim_start_matches('<').trim_end_matches('>').to_string())
    })
}

/// Where a URL points: scheme, host and port (the default one when not written). Only
/// URLs of the --api-url's origin are asked, so the token is sent nowhere else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Origin {
    scheme: String,
    host: String,
    port: u16,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}://{}:{}", self.scheme, self.host, self.port)
    }
}

/// The origin of an absolute http(s) URL; `None` for anything else.
pub(crate) fn origin(url: &str) -> Option<Origin> {
    let uri: ureq::http::Uri = url.trim().parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let default = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let host = uri.host()?.to_ascii_lowercase();
    if host.is_empty() || host == "[]" {
        return None;
    }
    Some(Origin { scheme, host, port: uri.port_u16().unwrap_or(default) })
}

/// An --api-url as capture takes it: an http(s) URL with a host, and no user name or
/// password (they would be written into snapshot.json; the token goes in GITHUB_TOKEN).
pub fn check_api_url(url: &str) -> crate::error::Result<Origin> {
    let bad = |why: &str| crate::error::Error::Usage(format!("--api-url `{}`: {why}", crate::text::printable(url)));
    let uri: ureq::http::Uri = url.trim().parse().map_err(|_| bad("not a URL (expected e.g. https://api.github.com or https://HOST/api/v3)"))?;
    if uri.authority().is_some_and(|a| a.as_str().contains('@')) {
        return Err(crate::error::Error::Usage(
            "--api-url must not hold a user name or password (it is written into snapshot.json); give the token in GITHUB_TOKEN".into(),
        ));
    }
    if !matches!(uri.scheme_str().map(str::to_ascii_lowercase).as_deref(), Some("http" | "https")) {
        return Err(bad("expected an http(s) URL"));
    }
    if uri.query().is_some() {
        return Err(bad("expected the API root, without a query"));
    }
    origin(url).ok_or_else(|| bad("no host in it"))
}

impl Client {
    pub(crate) fn new(base: &str, token: Option<String>, retry: Retry, max_pages: usize) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Redirects are followed here, not by ureq: ureq drops the token on every hop, so a
            // renamed repository (GitHub's same-origin 301 to `/repositories/ID/...`) would
            // answer 404 when private; and another host must never be asked.
            .max_redirects(0)
            .max_redirects_will_error(false)
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_global(Some(Duration::from_secs(300)))
            .user_agent(concat!("hindsight-capture/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let base = base.trim_end_matches('/').to_string();
        Client {
            agent,
            origin: origin(&base),
            base,
            token,
            retry,
            budget: Mutex::new(Budget::default()),
            requests: std::sync::atomic::AtomicU64::new(0),
            max_pages,
            note: Box::new(|_| {}),
        }
    }

    /// Where to say what the user should know while it happens (a long wait, a link not
    /// followed).
    pub(crate) fn with_notes(mut self, note: impl Fn(&str) + Send + Sync + 'static) -> Client {
        self.note = Box::new(note);
        self
    }

    pub(crate) fn url(&self, request: &str) -> String {
        format!("{}/{}", self.base, request.trim_start_matches('/'))
    }

    /// Whether `url` is on the --api-url's origin (scheme, host and port).
    pub(crate) fn same_origin(&self, url: &str) -> bool {
        self.origin.is_some() && origin(url) == self.origin
    }

    /// One request, as many times as the rules above allow; `Err` is the text of a
    /// connection failure that persisted. A 2xx body goes into `spool` when one is given.
    /// A redirect on the --api-url's origin is followed with the token (a renamed or
    /// transferred repository answers the old name so), up to [`MAX_REDIRECTS`] hops; one to
    /// another host or port, or of a POST, is not followed: the answer is a failed capture
    /// naming where it pointed.
    fn once(&self, url: &str, etag: Option<&str>, post: Option<&str>, spool: Option<&mut Spool>) -> Result<Result<Answer, String>> {
        let mut target = url.to_string();
        let mut hops = 0usize;
        let mut resp = loop {
            let resp = match self.request(&target, etag, post) {
                Ok(r) => r,
                Err(e) => return Ok(Err(connection_error(&e))),
            };
            let status = resp.status().as_u16();
            if !matches!(status, 301 | 302 | 303 | 307 | 308) {
                break resp;
            }
            let location = resp.headers().get("location").and_then(|v| v.to_str().ok()).map(|l| self.absolute(&target, l));
            let refused = |why: String| Ok(Ok(Answer::refused(&why)));
            let Some(next) = location else {
                return refused(format!("{target} answered {status} with no Location: not followed"));
            };
            if post.is_some() {
                return refused(format!("{target} answered {status} to a POST, pointing to {next}: not followed"));
            }
            if !self.same_origin(&next) {
                return refused(format!("{target} answered {status}, pointing to {next} on another host: not followed (the token goes to the --api-url's host only)"));
            }
            hops += 1;
            if hops > MAX_REDIRECTS {
                return refused(format!("{url} redirected more than {MAX_REDIRECTS} times: not followed further"));
            }
            target = next;
        };
        let h = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let num = |name: &str| h(name).and_then(|v| v.trim().parse::<u64>().ok());
        let (next, etag, retry_after, remaining, reset) =
            (h("link").as_deref().and_then(next_link), h("etag"), num("retry-after"), num("x-ratelimit-remaining"), num("x-ratelimit-reset"));
        let status = resp.status().as_u16();
        let ok = (200..300).contains(&status);
        let (body, not_json) = match spool {
            Some(spool) if ok => {
                let mut reader = resp.body_mut().with_config().limit(1 << 30).reader();
                match spool.push_reader(&mut reader)? {
                    Ok(bad) => (String::new(), bad),
                    Err(e) => return Ok(Err(format!("connection failed while reading the answer: {}", e.kind()))),
                }
            }
            _ => {
                let body = match resp.body_mut().with_config().limit(1 << 30).read_to_string() {
                    Ok(b) => b,
                    Err(e) => return Ok(Err(connection_error(&e))),
                };
                let bad = ok && serde_json::from_str::<serde::de::IgnoredAny>(&body).is_err();
                let first = bad.then(|| body.chars().take(200).collect());
                (body, first)
            }
        };
        Ok(Ok(Answer { status, body, not_json, next, etag, retry_after, remaining, reset, refused: false }))
    }

    /// One HTTP request to `url`, the token sent only to the --api-url's origin.
    fn request(&self, url: &str, etag: Option<&str>, post: Option<&str>) -> std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error> {
        // The token goes to the --api-url's origin only (callers check first; this is the
        // last guard).
        let token = self.token.as_ref().filter(|_| self.same_origin(url));
        self.requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match post {
            None => {
                let mut req = self.agent.get(url).header("Accept", ACCEPT).header("X-GitHub-Api-Version", API_VERSION);
                if let Some(t) = token {
                    req = req.header("Authorization", &format!("Bearer {t}"));
                }
                if let Some(e) = etag {
                    req = req.header("If-None-Match", e);
                }
                req.call()
            }
            Some(body) => {
                let mut req =
                    self.agent.post(url).header("Accept", ACCEPT).header("X-GitHub-Api-Version", API_VERSION).header("Content-Type", "application/json");
                if let Some(t) = token {
                    req = req.header("Authorization", &format!("Bearer {t}"));
                }
                req.send(body)
            }
        }
    }

    /// A `Location` as an absolute URL: as given, or a path on the origin of `from`.
    fn absolute(&self, from: &str, location: &str) -> String {
        if origin(location).is_some() {
            return location.to_string();
        }
        match origin(from) {
            Some(o) if location.starts_with('/') => format!("{}://{}:{}{location}", o.scheme, o.host, o.port),
            _ => location.to_string(),
        }
    }

    /// Wait while the primary budget is spent.
    fn wait_for_budget(&self, label: &str) {
        let b = self.budget.lock().map(|b| *b).unwrap_or_default();
        if let (Some(0), Some(reset)) = (b.remaining, b.reset) {
            let now = now_secs();
            if reset > now {
                let wait = Duration::from_secs(reset - now);
                if wait > self.retry.max_wait {
                    // A reset further off than capture ever waits: asked now, and recorded as
                    // failed if the limit still holds, rather than an hour's wait per request.
                    (self.note)(&format!(
                        "{label}: the API rate limit resets in {}, past the most capture waits ({}): asked without waiting",
                        seconds(wait),
                        seconds(self.retry.max_wait)
                    ));
                } else {
                    (self.note)(&format!("{label}: waiting {} for the API rate limit to reset (it is spent)", seconds(wait)));
                    std::thread::sleep(wait);
                }
            }
            if let Ok(mut b) = self.budget.lock() {
                b.remaining = None;
            }
        }
    }

    /// A request with retries: 5xx, 2xx bodies that are not JSON and connection failures
    /// with backoff, rate limits (primary: 403/429 with the budget spent; secondary: 403/429
    /// with `Retry-After`) by waiting as told, said on stderr. What still fails is the
    /// answer. `label` names the path in what is said.
    fn send(&self, label: &str, url: &str, etag: Option<&str>, post: Option<&str>, mut spool: Option<&mut Spool>) -> Result<Result<Answer, String>> {
        let mut failures = 0u32;
        let mut limited = 0u32;
        loop {
            self.wait_for_budget(label);
            let a = self.once(url, etag, post, spool.as_deref_mut())?;
            if let Ok(a) = &a {
                if a.remaining.is_some() || a.reset.is_some() {
                    if let Ok(mut b) = self.budget.lock() {
                        b.remaining = a.remaining.or(b.remaining);
                        b.reset = a.reset.or(b.reset);
                    }
                }
            }
            match a {
                Ok(a) if matches!(a.status, 403 | 429) && (a.retry_after.is_some() || a.remaining == Some(0)) && limited < 20 => {
                    limited += 1;
                    let (wait, why) = match a.retry_after {
                        Some(s) => (Duration::from_secs(s), format!("the server answered {} with Retry-After: {s}", a.status)),
                        None => (
                            Duration::from_secs(a.reset.unwrap_or(0).saturating_sub(now_secs()).max(1)),
                            format!("the server answered {}: the API rate limit is spent until it resets", a.status),
                        ),
                    };
                    if wait > self.retry.max_wait {
                        (self.note)(&format!(
                            "{label}: not waiting {} ({why}; the most capture waits is {}): recorded as a failed capture",
                            seconds(wait),
                            seconds(self.retry.max_wait)
                        ));
                        return Ok(Ok(a));
                    }
                    (self.note)(&format!("{label}: waiting {} before asking again ({why})", seconds(wait)));
                    std::thread::sleep(wait);
                }
                Ok(a) if !a.refused && (a.status >= 500 || a.not_json.is_some()) && failures < self.retry.attempts => {
                    std::thread::sleep(self.retry.base * 2u32.pow(failures));
                    failures += 1;
                }
                Err(_) if failures < self.retry.attempts => {
                    std::thread::sleep(self.retry.base * 2u32.pow(failures));
                    failures += 1;
                }
                other => return Ok(other),
            }
        }
    }

    /// Every page of `request` (`Link` rel="next", up to `max_pages`) into `spool`. A 304
    /// to a conditional request answers `None`: the captured copy is current. A failure
    /// that persists is an answer too: its status (599 for a connection that kept failing)
    /// and its body, the spool's one page. A next page on another origin than --api-url's
    /// is not asked for (the token would go there): the path fails. A next page already
    /// asked for ends the list (a server that links a page to itself). `Err`: the spool
    /// could not be written.
    pub(crate) fn fetch(&self, path: &str, request: &str, etag: Option<&str>, spool: &mut Spool) -> Result<Option<Fetched>> {
        let mut url = self.url(request);
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        let mut first_etag = None;
        let mut status = 200u16;
        let fail = |spool: &mut Spool, status: u16, body: &str| -> Result<Option<Fetched>> {
            spool.clear()?;
            spool.push_text(body)?;
            Ok(Some(Fetched { request: request.to_string(), status, etag: None, at: chrono::Utc::now() }))
        };
        if !self.same_origin(&url) {
            let why = format!("{url} is not on the --api-url's host");
            return fail(spool, UNUSABLE, &serde_json::json!({ "message": why }).to_string());
        }
        for i in 0..self.max_pages.max(1) {
            seen.insert(url.clone());
            let a = match self.send(path, &url, if i == 0 { etag } else { None }, None, Some(spool))? {
                Ok(a) => a,
                Err(why) => return fail(spool, 599, &serde_json::json!({ "message": why }).to_string()),
            };
            if a.status == 304 && i == 0 {
                return Ok(None);
            }
            if i == 0 {
                first_etag = a.etag.clone();
            }
            if let Some(first) = &a.not_json {
                let why = format!("page {} was answered {} with a body that is not JSON (it begins {first:?})", i + 1, a.status);
                (self.note)(&format!("{path}: {why}; recorded as a failed capture"));
                return fail(spool, UNUSABLE, &serde_json::json!({ "message": why }).to_string());
            }
            if !(200..300).contains(&a.status) {
                // A failed page fails the path: only that answer is kept.
                return fail(spool, a.status, &a.body);
            }
            status = a.status;
            let Some(n) = a.next else { break };
            if !self.same_origin(&n) {
                let there = origin(&n).map_or_else(|| "not an absolute http(s) URL".to_string(), |o| o.to_string());
                let why = format!(
                    "page {} links its next page to another host ({there}, not the --api-url's {}): not followed, so the token is not sent there",
                    i + 1,
                    self.origin.as_ref().map_or_else(String::new, Origin::to_string)
                );
                (self.note)(&format!("{path}: {why}; recorded as a failed capture"));
                return fail(spool, UNUSABLE, &serde_json::json!({ "message": why }).to_string());
            }
            if seen.contains(&n) {
                (self.note)(&format!("{path}: page {} links back to a page already read; the list ends there", i + 1));
                break;
            }
            url = n;
        }
        Ok(Some(Fetched { request: request.to_string(), status, etag: first_etag, at: chrono::Utc::now() }))
    }
}

impl Client {
    /// A GraphQL capture, its answer into `spool`: each query in turn (an organization's
    /// project, then a user's) until one finds its node. Not found is a 404; GraphQL errors
    /// other than NOT_FOUND, and HTTP failures, are failed captures with the answer as body.
    pub(crate) fn graphql(&self, path: &str, endpoint: &str, queries: &[super::graphql::Query], spool: &mut Spool) -> Result<Fetched> {
        let label = |q: &super::graphql::Query| format!("graphql {}", q.variables);
        let done = |spool: &mut Spool, request: String, status: u16, body: &str| -> Result<Fetched> {
            spool.clear()?;
            spool.push_text(body)?;
            Ok(Fetched { request, status, etag: None, at: chrono::Utc::now() })
        };
        if !self.same_origin(endpoint) {
            let why = format!("the GraphQL endpoint {endpoint} is not on the --api-url's host: not asked");
            return done(spool, "graphql".into(), UNUSABLE, &serde_json::json!({ "message": why }).to_string());
        }
        let mut last = None;
        for q in queries {
            let body = serde_json::json!({"query": q.query, "variables": q.variables}).to_string();
            let a = match self.send(path, endpoint, None, Some(&body), None)? {
                Ok(a) => a,
                Err(why) => return done(spool, label(q), 599, &serde_json::json!({ "message": why }).to_string()),
            };
            if let Some(first) = &a.not_json {
                let why = format!("answered {} with a body that is not JSON (it begins {first:?})", a.status);
                (self.note)(&format!("{path}: {why}; recorded as a failed capture"));
                return done(spool, label(q), UNUSABLE, &serde_json::json!({ "message": why }).to_string());
            }
            if !(200..300).contains(&a.status) {
                return done(spool, label(q), a.status, &a.body);
            }
            let answer: serde_json::Value = serde_json::from_str(&a.body).unwrap_or(serde_json::Value::Null);
            if let Some(node) = super::graphql::node(&answer, q.at) {
                let node = if q.project { super::graphql::project(node) } else { node.clone() };
                return done(spool, label(q), 200, &node.to_string());
            }
            let errors = answer.get("errors").and_then(serde_json::Value::as_array).cloned().unwrap_or_default();
            let not_found = errors.iter().all(|e| e.get("type").and_then(serde_json::Value::as_str) == Some("NOT_FOUND"));
            let status = if not_found { 404 } else { 502 };
            last = Some((label(q), status, a.body));
            if !not_found {
                break;
            }
        }
        let (request, status, body) = last.unwrap_or(("graphql".into(), 404, "null".into()));
        done(spool, request, status, &body)
    }
}

/// A wait as said to the user.
fn seconds(d: Duration) -> String {
    match d.as_secs() {
        0 => format!("{} ms", d.as_millis()),
        s if s < 120 => format!("{s} s"),
        s => format!("{s} s ({} min)", s.div_ceil(60)),
    }
}

/// A transport error's text, without anything of the request (the token is in a header).
fn connection_error(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Io(io) => format!("connection failed: {}", io.kind()),
        ureq::Error::Timeout(t) => format!("timed out ({t:?})"),
        ureq::Error::HostNotFound => "host not found".into(),
        other => format!("request failed: {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::next_link;

    #[test]
    fn next_links() {
        let l = r#"<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last""#;
        assert_eq!(next_link(l).as_deref(), Some("https://api.github.com/repositories/1/issues?page=2"));
        assert_eq!(next_link(r#"<https://x/y?page=1>; rel="prev""#), None);
    }
}
