//! GitHub's REST API over HTTP (ureq, rustls): pinned media type and API version, pages
//! followed by `Link: rel="next"`, conditional requests, rate limits honoured and retries
//! with backoff. The token goes in one header and nowhere else: never in a file, a line of
//! the cassette or a message.

use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::store::Fetched;

pub const ACCEPT: &str = "application/vnd.github+json";
pub const API_VERSION: &str = "2022-11-28";

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
pub struct Budget {
    pub remaining: Option<u64>,
    /// Unix seconds when the budget resets.
    pub reset: Option<u64>,
}

pub struct Client {
    agent: ureq::Agent,
    base: String,
    token: Option<String>,
    retry: Retry,
    pub budget: Mutex<Budget>,
    pub requests: std::sync::atomic::AtomicU64,
    max_pages: usize,
}

/// One HTTP answer.
struct Answer {
    status: u16,
    body: String,
    next: Option<String>,
    etag: Option<String>,
    retry_after: Option<u64>,
    remaining: Option<u64>,
    reset: Option<u64>,
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

impl Client {
    pub fn new(base: &str, token: Option<String>, retry: Retry, max_pages: usize) -> Client {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(Duration::from_secs(30)))
            .timeout_global(Some(Duration::from_secs(300)))
            .user_agent(concat!("hindsight-capture/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Client {
            agent,
            base: base.trim_end_matches('/').to_string(),
            token,
            retry,
            budget: Mutex::new(Budget::default()),
            requests: std::sync::atomic::AtomicU64::new(0),
            max_pages,
        }
    }

    pub fn url(&self, request: &str) -> String {
        format!("{}/{}", self.base, request.trim_start_matches('/'))
    }

    /// One request, as many times as the rules above allow; `Err` is the text of a
    /// connection failure that persisted.
    fn once(&self, url: &str, etag: Option<&str>, post: Option<&str>) -> Result<Answer, String> {
        self.requests.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let sent = match post {
            None => {
                let mut req = self.agent.get(url).header("Accept", ACCEPT).header("X-GitHub-Api-Version", API_VERSION);
                if let Some(t) = &self.token {
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
                if let Some(t) = &self.token {
                    req = req.header("Authorization", &format!("Bearer {t}"));
                }
                req.send(body)
            }
        };
        let mut resp = sent.map_err(|e| connection_error(&e))?;
        let h = |name: &str| resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        let num = |name: &str| h(name).and_then(|v| v.trim().parse::<u64>().ok());
        let (next, etag, retry_after, remaining, reset) =
            (h("link").as_deref().and_then(next_link), h("etag"), num("retry-after"), num("x-ratelimit-remaining"), num("x-ratelimit-reset"));
        let status = resp.status().as_u16();
        let body = resp.body_mut().with_config().limit(1 << 30).read_to_string().map_err(|e| connection_error(&e))?;
        Ok(Answer { status, body, next, etag, retry_after, remaining, reset })
    }

    /// Wait while the primary budget is spent.
    fn wait_for_budget(&self) {
        let b = self.budget.lock().map(|b| *b).unwrap_or_default();
        if let (Some(0), Some(reset)) = (b.remaining, b.reset) {
            let now = now_secs();
            if reset > now {
                std::thread::sleep(Duration::from_secs(reset - now).min(self.retry.max_wait));
            }
            if let Ok(mut b) = self.budget.lock() {
                b.remaining = None;
            }
        }
    }

    /// A request with retries: 5xx and connection failures with backoff, rate limits
    /// (primary: 403/429 with the budget spent; secondary: 403/429 with `Retry-After`) by
    /// waiting as told. What still fails is the answer.
    fn get(&self, url: &str, etag: Option<&str>) -> Result<Answer, String> {
        self.send(url, etag, None)
    }

    fn send(&self, url: &str, etag: Option<&str>, post: Option<&str>) -> Result<Answer, String> {
        let mut failures = 0u32;
        let mut limited = 0u32;
        loop {
            self.wait_for_budget();
            let a = self.once(url, etag, post);
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
                    let wait = match a.retry_after {
                        Some(s) => Duration::from_secs(s),
                        None => Duration::from_secs(a.reset.unwrap_or(0).saturating_sub(now_secs()).max(1)),
                    };
                    if wait > self.retry.max_wait {
                        return Ok(a);
                    }
                    std::thread::sleep(wait);
                }
                Ok(a) if a.status >= 500 && failures < self.retry.attempts => {
                    std::thread::sleep(self.retry.base * 2u32.pow(failures));
                    failures += 1;
                }
                Err(_) if failures < self.retry.attempts => {
                    std::thread::sleep(self.retry.base * 2u32.pow(failures));
                    failures += 1;
                }
                other => return other,
            }
        }
    }

    /// Every page of `request` (`Link` rel="next", up to `max_pages`). A 304 to a
    /// conditional request answers `None`: the captured copy is current. A failure that
    /// persists is an answer too: its status (599 for a connection that kept failing) and
    /// its body.
    pub fn fetch(&self, request: &str, etag: Option<&str>) -> Option<Fetched> {
        let mut url = self.url(request);
        let mut pages = Vec::new();
        let mut first_etag = None;
        let mut status = 200u16;
        for i in 0..self.max_pages.max(1) {
            let a = match self.get(&url, if i == 0 { etag } else { None }) {
                Ok(a) => a,
                Err(why) => {
                    let body = serde_json::json!({ "message": why }).to_string();
                    return Some(Fetched { request: request.to_string(), status: 599, etag: None, at: chrono::Utc::now(), pages: vec![body] });
                }
            };
            if a.status == 304 && i == 0 {
                return None;
            }
            if i == 0 {
                first_etag = a.etag.clone();
            }
            if !(200..300).contains(&a.status) {
                // A failed page fails the path: only that answer is kept.
                return Some(Fetched { request: request.to_string(), status: a.status, etag: None, at: chrono::Utc::now(), pages: vec![a.body] });
            }
            status = a.status;
            pages.push(a.body);
            match a.next {
                Some(n) => url = n,
                None => break,
            }
        }
        Some(Fetched { request: request.to_string(), status, etag: first_etag, at: chrono::Utc::now(), pages })
    }
}

impl Client {
    /// A GraphQL capture: each query in turn (an organization's project, then a user's)
    /// until one finds its node. Not found is a 404; GraphQL errors other than NOT_FOUND,
    /// and HTTP failures, are failed captures with the answer as body.
    pub fn graphql(&self, endpoint: &str, queries: &[super::graphql::Query]) -> Fetched {
        let label = |q: &super::graphql::Query| format!("graphql {}", q.variables);
        let mut last = None;
        for q in queries {
            let body = serde_json::json!({"query": q.query, "variables": q.variables}).to_string();
            let a = match self.send(endpoint, None, Some(&body)) {
                Ok(a) => a,
                Err(why) => {
                    let body = serde_json::json!({ "message": why }).to_string();
                    return Fetched { request: label(q), status: 599, etag: None, at: chrono::Utc::now(), pages: vec![body] };
                }
            };
            if !(200..300).contains(&a.status) {
                return Fetched { request: label(q), status: a.status, etag: None, at: chrono::Utc::now(), pages: vec![a.body] };
            }
            let answer: serde_json::Value = serde_json::from_str(&a.body).unwrap_or(serde_json::Value::Null);
            if let Some(node) = super::graphql::node(&answer, q.at) {
                let node = if q.project { super::graphql::project(node) } else { node.clone() };
                return Fetched { request: label(q), status: 200, etag: None, at: chrono::Utc::now(), pages: vec![node.to_string()] };
            }
            let errors = answer.get("errors").and_then(serde_json::Value::as_array).cloned().unwrap_or_default();
            let not_found = errors.iter().all(|e| e.get("type").and_then(serde_json::Value::as_str) == Some("NOT_FOUND"));
            let status = if not_found { 404 } else { 502 };
            last = Some(Fetched { request: label(q), status, etag: None, at: chrono::Utc::now(), pages: vec![a.body] });
            if !not_found {
                break;
            }
        }
        last.unwrap_or(Fetched { request: "graphql".into(), status: 404, etag: None, at: chrono::Utc::now(), pages: vec!["null".into()] })
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
