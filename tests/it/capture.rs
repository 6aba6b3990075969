//! `hindsight capture` against a local server on the loopback address that replays the
//! demo snapshot's recorded bodies as GitHub would serve them (pages with `Link` headers,
//! ETags and 304s, rate limits, 5xx, 404s, a reset connection), and `capture --plan`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::support::{bin, fixture, ok, Study};

const TOKEN: &str = "ghp_test_token_never_written";

/// Every capture of the demo snapshot, path -> body (pages joined in page order).
fn demo_bodies() -> BTreeMap<String, Value> {
    let mut pages: BTreeMap<String, BTreeMap<u64, Value>> = BTreeMap::new();
    let dir = fixture("demo/snapshot");
    for f in std::fs::read_dir(&dir).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "jsonl") {
            for line in std::fs::read_to_string(&p).unwrap().lines().filter(|l| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line).unwrap();
                let status = v["status"].as_u64().unwrap_or(200);
                if status == 200 {
                    pages.entry(v["path"].as_str().unwrap().to_string()).or_default().insert(v["page"].as_u64().unwrap_or(1), v["body"].clone());
                }
            }
        }
    }
    let mut out: BTreeMap<String, Value> = BTreeMap::new();
    for (path, mut p) in pages {
        let body = if p.len() > 1 {
            Value::Array(p.into_values().flat_map(|b| b.as_array().cloned().unwrap_or_default()).collect())
        } else {
            p.pop_first().unwrap().1
        };
        out.insert(path, body);
    }
    for rel in walk(&dir.join("repos")) {
        let body: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("repos").join(&rel)).unwrap()).unwrap();
        out.insert(format!("repos/{}", rel.trim_end_matches(".json")), body);
    }
    out
}

fn walk(d: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(d).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p).into_iter().map(|r| format!("{}/{r}", p.file_name().unwrap().to_string_lossy())));
        } else {
            out.push(p.file_name().unwrap().to_string_lossy().to_string());
        }
    }
    out
}

/// How the server treats one path, beyond serving its body.
#[derive(Clone, Debug, PartialEq)]
enum Quirk {
    /// 200 with `[]`, its next page linked to this URL (another server).
    LinkTo(String),
    /// 200 with `[1]`, its next page linked to itself, always.
    SelfLink,
    /// 200 with an HTML body, always.
    NotJson,
    /// 500, always.
    Broken,
    /// This many pages (linked), each a list of one object holding a string of this many
    /// bytes, made as asked (the server holds one page at a time); then, with `fail_after`,
    /// a next page that answers 500 forever.
    Big { pages: usize, bytes: usize, fail_after: bool },
    /// 502 this many times, then the body.
    BadGateway(usize),
    /// The connection is closed without an answer, once.
    Reset,
    /// 403 with `Retry-After: 1`, once (a secondary rate limit).
    Secondary,
    /// The budget is spent: 403 with `X-RateLimit-Remaining: 0` and a reset a second away, once.
    Primary,
    /// The budget is spent until a day from now: 403 with `X-RateLimit-Remaining: 0`, always.
    PrimaryFar,
    /// Served in pages of this many items, linked by `Link: rel="next"`.
    Pages(usize),
    /// This status with `Location:` this URL (`{base}` in it: the server's own), always (a
    /// renamed repository, or a redirect elsewhere).
    Redirect(u16, String),
}

struct Server {
    url: String,
    hits: Arc<Mutex<Vec<String>>>,
    requests: Arc<AtomicUsize>,
}

fn serve(bodies: BTreeMap<String, Value>, quirks: HashMap<String, Quirk>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits = Arc::new(Mutex::new(Vec::new()));
    let requests = Arc::new(AtomicUsize::new(0));
    let state = Arc::new(Mutex::new(HashMap::<String, usize>::new()));
    let (h, r, base) = (hits.clone(), requests.clone(), url.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (bodies, quirks, state, h, r, base) = (bodies.clone(), quirks.clone(), state.clone(), h.clone(), r.clone(), base.clone());
            std::thread::spawn(move || handle(stream, &bodies, &quirks, &state, &h, &r, &base));
        }
    });
    Server { url, hits, requests }
}

/// A GraphQL request answered from the recorded `graphql/...` captures, as GitHub would
/// wrap them; (the path it stands for, the answer).
fn graphql_answer(req: &Value, bodies: &BTreeMap<String, Value>) -> (String, Value) {
    let (q, v) = (req["query"].as_str().unwrap(), &req["variables"]);
    let repo = format!("{}/{}", v["owner"].as_str().unwrap_or(""), v["name"].as_str().unwrap_or(""));
    let (path, wrap): (String, fn(Value) -> Value) = if q.contains("discussion(number") {
        (format!("graphql/repos/{repo}/discussions/{}", v["number"]), |n| serde_json::json!({"repository": {"discussion": n}}))
    } else if q.contains("reviewThreads") {
        (format!("graphql/repos/{repo}/pulls/{}/review_threads", v["number"]), |n| serde_json::json!({"repository": {"pullRequest": {"reviewThreads": n}}}))
    } else if q.contains("node(id") {
        // Node ids are `C:OWNER/REPO:ID` here (see `with_node_ids`).
        let id = v["id"].as_str().unwrap();
        let mut parts = id.splitn(3, ':').skip(1);
        let (r, n) = (parts.next().unwrap(), parts.next().unwrap());
        (format!("graphql/repos/{r}/comments/{n}"), |n| serde_json::json!({"node": n}))
    } else {
        return ("graphql/projects".into(), serde_json::json!({"data": {"organization": null}, "errors": [{"type": "NOT_FOUND"}]}));
    };
    match bodies.get(&path) {
        Some(b) => (path, serde_json::json!({"data": wrap(b.clone())})),
        None => (path, serde_json::json!({"data": wrap(Value::Null), "errors": [{"type": "NOT_FOUND", "message": "not found"}]})),
    }
}

/// REST comment bodies with the `node_id` GitHub gives them (`C:OWNER/REPO:ID` here); a
/// comment the demo has only as GraphQL gets its REST body too, as GitHub would serve it.
fn with_node_ids(mut bodies: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    let graphql_comments: Vec<(String, String, String)> = bodies
        .keys()
        .filter_map(|p| match p.split('/').collect::<Vec<_>>().as_slice() {
            ["graphql", "repos", o, r, "comments", id] => Some((o.to_string(), r.to_string(), id.to_string())),
            _ => None,
        })
        .collect();
    for (o, r, id) in graphql_comments {
        let n: i64 = id.parse().unwrap();
        bodies.entry(format!("repos/{o}/{r}/issues/comments/{id}")).or_insert_with(|| serde_json::json!({"id": n}));
    }
    for (path, body) in bodies.iter_mut() {
        let seg: Vec<&str> = path.split('/').collect();
        if let ["repos", o, r, "issues" | "pulls", "comments", id] = seg.as_slice() {
            if let Some(obj) = body.as_object_mut() {
                obj.insert("node_id".into(), Value::String(format!("C:{o}/{r}:{id}")));
            }
        }
    }
    bodies
}

#[allow(clippy::too_many_arguments)]
fn handle(
    stream: TcpStream,
    bodies: &BTreeMap<String, Value>,
    quirks: &HashMap<String, Quirk>,
    state: &Mutex<HashMap<String, usize>>,
    hits: &Mutex<Vec<String>>,
    requests: &AtomicUsize,
    base: &str,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut first = String::new();
        if reader.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        let mut headers = HashMap::new();
        loop {
            let mut l = String::new();
            reader.read_line(&mut l).unwrap();
            if l.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = l.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        requests.fetch_add(1, Ordering::SeqCst);
        let mut out = stream.try_clone().unwrap();
        if first.starts_with("POST") {
            let len: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
            let mut buf = vec![0u8; len];
            std::io::Read::read_exact(&mut reader, &mut buf).unwrap();
            let req: Value = serde_json::from_slice(&buf).unwrap();
            let (path, answer) = graphql_answer(&req, bodies);
            hits.lock().unwrap().push(path);
            let text = answer.to_string();
            let _ = write!(out, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}", text.len());
            let _ = out.flush();
            continue;
        }
        let target = first.split_whitespace().nth(1).unwrap_or("/").to_string();
        let (path, query) = target
            .trim_start_matches('/')
            .split_once('?')
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap_or((target.trim_start_matches('/').to_string(), String::new()));
        assert_eq!(headers.get("authorization").map(String::as_str), Some(format!("Bearer {TOKEN}").as_str()), "token header");
        assert_eq!(headers.get("x-github-api-version").map(String::as_str), Some("2022-11-28"));
        hits.lock().unwrap().push(path.clone());
        let seen = {
            let mut s = state.lock().unwrap();
            let n = s.entry(path.clone()).or_insert(0);
            *n += 1;
            *n
        };
        let reply = |out: &mut TcpStream, status: &str, extra: &str, body: &str| {
            let _ = write!(out, "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}\r\n{body}", body.len());
            let _ = out.flush();
        };
        // A quirk under "*" holds for every path without one of its own.
        match quirks.get(&path).or_else(|| quirks.get("*")) {
            Some(Quirk::BadGateway(n)) if seen <= *n => {
                reply(&mut out, "502 Bad Gateway", "", "{\"message\":\"Server Error\"}");
                continue;
            }
            Some(Quirk::Reset) if seen == 1 => {
                let _ = out.shutdown(std::net::Shutdown::Both);
                return;
            }
            Some(Quirk::Secondary) if seen == 1 => {
                reply(&mut out, "403 Forbidden", "retry-after: 1\r\n", "{\"message\":\"You have exceeded a secondary rate limit\"}");
                continue;
            }
            Some(Quirk::LinkTo(there)) => {
                reply(&mut out, "200 OK", &format!("link: <{there}>; rel=\"next\"\r\n"), "[]");
                continue;
            }
            Some(Quirk::SelfLink) => {
                reply(&mut out, "200 OK", &format!("link: <{base}/{path}?{query}>; rel=\"next\"\r\n"), "[1]");
                continue;
            }
            Some(Quirk::Redirect(code, to)) => {
                let to = to.replace("{base}", base);
                reply(&mut out, &format!("{code} Moved"), &format!("location: {to}\r\n"), "{\"message\":\"Moved Permanently\"}");
                continue;
            }
            Some(Quirk::NotJson) => {
                reply(&mut out, "200 OK", "", "<html><body>Unicorn! This page is taking too long to load.</body></html>");
                continue;
            }
            Some(Quirk::Broken) => {
                reply(&mut out, "500 Internal Server Error", "", "{\"message\":\"Server Error\"}");
                continue;
            }
            Some(Quirk::Big { pages, bytes, fail_after }) => {
                let page: usize = query.split('&').find_map(|kv| kv.strip_prefix("page=")).and_then(|p| p.parse().ok()).unwrap_or(1);
                if page > *pages {
                    reply(&mut out, "500 Internal Server Error", "", "{\"message\":\"Server Error\"}");
                    continue;
                }
                let last = if *fail_after { pages + 1 } else { *pages };
                let link = if page < last { format!("link: <{base}/{path}?page={}>; rel=\"next\"\r\n", page + 1) } else { String::new() };
                let body = format!("[{{\"sha\": \"{}\"}}]", "a".repeat(*bytes));
                let _ = write!(out, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{link}\r\n", body.len());
                let _ = out.write_all(body.as_bytes());
                let _ = out.flush();
                continue;
            }
            // The budget spent until a second (once) or a day (always) from now.
            Some(q @ (Quirk::Primary | Quirk::PrimaryFar)) if *q == Quirk::PrimaryFar || seen == 1 => {
                let ahead = if *q == Quirk::PrimaryFar { 86_400 } else { 1 };
                let reset = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() + ahead;
                reply(
                    &mut out,
                    "403 Forbidden",
                    &format!("x-ratelimit-remaining: 0\r\nx-ratelimit-reset: {reset}\r\n"),
                    "{\"message\":\"API rate limit exceeded\"}",
                );
                continue;
            }
            _ => {}
        }
        let Some(body) = bodies.get(&path) else {
            reply(&mut out, "404 Not Found", "", "{\"message\":\"Not Found\"}");
            continue;
        };
        let etag = format!("\"{}\"", body.to_string().len());
        if headers.get("if-none-match") == Some(&etag) {
            reply(&mut out, "304 Not Modified", &format!("etag: {etag}\r\n"), "");
            continue;
        }
        let limits = "x-ratelimit-remaining: 4999\r\nx-ratelimit-reset: 99999999999\r\n";
        match (quirks.get(&path), body.as_array()) {
            (Some(Quirk::Pages(size)), Some(items)) => {
                let page: usize = query.split('&').find_map(|kv| kv.strip_prefix("page=")).and_then(|p| p.parse().ok()).unwrap_or(1);
                let chunk: Vec<&Value> = items.iter().skip((page - 1) * size).take(*size).collect();
                let last = items.len().div_ceil(*size).max(1);
                let link = if page < last {
                    format!("link: <{base}/{path}?page={}>; rel=\"next\", <{base}/{path}?page={last}>; rel=\"last\"\r\n", page + 1)
                } else {
                    String::new()
                };
                reply(&mut out, "200 OK", &format!("{limits}etag: {etag}\r\n{link}"), &serde_json::to_string(&chunk).unwrap());
            }
            _ => reply(&mut out, "200 OK", &format!("{limits}etag: {etag}\r\n"), &body.to_string()),
        }
    }
}

fn capture(server: &Server, snap: &Path, extra: &[&str]) -> std::process::Output {
    let runs = fixture("demo/runs");
    let mut args = vec!["capture", "--runs", runs.to_str().unwrap(), "--out", snap.to_str().unwrap(), "--api-url", &server.url, "--retry-base-ms", "10"];
    args.extend_from_slice(extra);
    std::process::Command::new(bin()).args(&args).env("GITHUB_TOKEN", TOKEN).env_remove("GH_TOKEN").output().unwrap()
}

/// The rows of `a` and `b` that differ, for a readable failure.
fn assert_same_outcomes(a: &[Value], b: &[Value]) {
    assert_eq!(a.len(), b.len(), "row counts");
    let diff: Vec<String> = a.iter().zip(b).filter(|(x, y)| x != y).map(|(x, y)| format!("{x}\n  vs {y}")).collect();
    assert!(diff.is_empty(), "{} rows differ:\n{}", diff.len(), diff.join("\n"));
}

fn outcomes(ds: &Path) -> Vec<Value> {
    let q = "SELECT safe_output_id, eval_window, outcome_status, evidence_strength, human_check_signal FROM outcomes ORDER BY safe_output_id, window_order";
    serde_json::from_str(&ok(&["report", "--dataset", ds.to_str().unwrap(), "--sql", q, "--format", "json"], ds)).unwrap()
}

/// Evaluate the demo runs against `snap`, as of the demo snapshot's time (the windows are
/// judged as of the same moment whatever day the capture ran).
fn evaluate_with(snap: &Path, tmp: &Path, name: &str) -> Vec<Value> {
    let info = fixture("demo/snapshot/snapshot.json");
    std::fs::copy(&info, snap.join("snapshot.json")).unwrap();
    outcomes(&Study::new(snap, fixture("demo/runs")).run(tmp, name))
}

/// The captured lines without their capture times (which the demo's never had).
fn untimed(snap: &Path) {
    let p = snap.join("capture.jsonl");
    let text = std::fs::read_to_string(&p).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("captured_at");
            v.to_string()
        })
        .collect();
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
}

/// The paths `capture --plan` lists for the demo, answered by its recorded snapshot.
fn planned(tmp: &Path) -> BTreeSet<String> {
    let plan = Study::demo().ok("capture", &["--plan"], tmp);
    plan.lines().filter(|l| l.starts_with("gh api")).map(|l| l.rsplit("# ").next().unwrap().trim().to_string()).collect()
}

/// What the plan lists as asked for with GraphQL.
fn planned_elsewhere(tmp: &Path) -> BTreeSet<String> {
    let plan = Study::demo().ok("capture", &["--plan"], tmp);
    plan.lines().filter_map(|l| l.strip_prefix("# graphql: ")).map(|l| l.split_whitespace().next().unwrap().to_string()).collect()
}

fn demo_quirks(bodies: &BTreeMap<String, Value>, planned: &BTreeSet<String>) -> HashMap<String, Quirk> {
    let asked = |p: &&String| planned.contains(*p);
    let lists: Vec<&String> = bodies.iter().filter(|(_, b)| b.as_array().is_some_and(|a| a.len() >= 2)).map(|(p, _)| p).filter(asked).collect();
    let singles: Vec<&String> = bodies.iter().filter(|(_, b)| b.is_object()).map(|(p, _)| p).filter(asked).collect();
    let mut q = HashMap::new();
    for l in lists.iter().take(3) {
        q.insert(l.to_string(), Quirk::Pages(1));
    }
    q.insert(singles[0].to_string(), Quirk::BadGateway(2));
    q.insert(singles[1].to_string(), Quirk::Reset);
    q.insert(singles[2].to_string(), Quirk::Secondary);
    q.insert(singles[3].to_string(), Quirk::Primary);
    q
}

/// The demo's bodies plus the repository lists GitHub would answer from the same state:
/// `repos/O/R/pulls` (its PRs, newest first) and `repos/O/R/commits` (its commits).
fn with_repository_lists(mut bodies: BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    let mut pulls: BTreeMap<String, Vec<(i64, Value)>> = BTreeMap::new();
    let mut commits: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (path, body) in &bodies {
        let seg: Vec<&str> = path.split('/').collect();
        if seg.len() == 5 && seg[0] == "repos" && seg[3] == "pulls" {
            if let Ok(n) = seg[4].parse::<i64>() {
                pulls.entry(format!("repos/{}/{}/pulls", seg[1], seg[2])).or_default().push((n, body.clone()));
            }
        }
        if seg.len() == 5 && seg[0] == "repos" && seg[3] == "commits" {
            commits.entry(format!("repos/{}/{}/commits", seg[1], seg[2])).or_default().push(body.clone());
        }
    }
    for (path, mut prs) in pulls {
        prs.sort_by_key(|p| std::cmp::Reverse(p.0));
        bodies.entry(path).or_insert_with(|| Value::Array(prs.into_iter().map(|p| p.1).collect()));
    }
    for (path, list) in commits {
        bodies.entry(path).or_insert(Value::Array(list));
    }
    bodies
}

#[test]
fn a_capture_from_a_replaying_server_gives_the_outcomes_of_the_recorded_snapshot() {
    let tmp = tempfile::tempdir().unwrap();
    let bodies = with_node_ids(with_repository_lists(demo_bodies()));
    let quirks = demo_quirks(&bodies, &planned(tmp.path()));
    assert!(quirks.len() >= 7, "{quirks:?}");
    let server = serve(bodies.clone(), quirks.clone());
    let snap = tmp.path().join("snap");
    let out = capture(&server, &snap, &["--concurrency", "3"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // Pages were followed, 5xx retried, rate limits waited out: every path the server holds
    // and the rules asked for is captured with status 200, in as many lines as pages.
    let text = std::fs::read_to_string(snap.join("capture.jsonl")).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for (path, q) in &quirks {
        let mine: Vec<&Value> = lines.iter().filter(|l| l["path"] == *path).collect();
        assert!(!mine.is_empty(), "{path} not captured");
        assert!(mine.iter().all(|l| l["status"] == 200), "{path}: {mine:?}");
        if let Quirk::Pages(_) = q {
            assert_eq!(mine.len(), bodies[path].as_array().unwrap().len(), "{path}: one line per page");
        }
    }
    // The token is in no file and no message.
    assert!(!text.contains(TOKEN) && !err.contains(TOKEN));
    let info = std::fs::read_to_string(snap.join("snapshot.json")).unwrap();
    assert!(!info.contains(TOKEN) && info.contains("2022-11-28"));
    // A path the server does not have is recorded as gone, not dropped.
    assert!(lines.iter().any(|l| l["status"] == 404));

    // GraphQL state was asked for too (a comment's node found through its REST capture),
    // and stored under its graphql/ path as the recorded snapshot has it.
    let gql: Vec<&Value> = lines.iter().filter(|l| l["path"].as_str().unwrap().starts_with("graphql/")).collect();
    for g in ["graphql/repos/acme/api/discussions/30", "graphql/repos/acme/api/comments/7240"] {
        assert!(gql.iter().any(|l| l["path"] == g), "{g} not captured: {err}");
    }
    for l in gql {
        let p = l["path"].as_str().unwrap();
        assert_eq!((l["status"].as_u64(), &l["body"]), (Some(200), &bodies[p]), "{p}");
    }
    // Evaluated as of the recorded snapshot's time, the captured snapshot gives the outcomes
    // of the hand-made one as this server answers it: the demo's bodies, and 404 for every
    // other path capture asked for.
    untimed(&snap);
    let expected = tmp.path().join("expected-snapshot");
    std::fs::create_dir_all(&expected).unwrap();
    // GraphQL answers for the paths the rules asked for (a rule that finds a 404 on the REST
    // side may not ask for the GraphQL one).
    let mut cassette = String::new();
    for l in lines.iter().filter(|l| l["path"].as_str().unwrap().starts_with("graphql/") && l["status"] == 200) {
        cassette.push_str(&serde_json::json!({"path": l["path"], "body": l["body"]}).to_string());
        cassette.push('\n');
    }
    for (path, body) in &bodies {
        if path.starts_with("repos/") {
            cassette.push_str(&serde_json::json!({"path": path, "body": body}).to_string());
            cassette.push('\n');
        }
    }
    for l in lines.iter().filter(|l| l["status"] == 404) {
        cassette.push_str(&serde_json::json!({"path": l["path"], "status": 404, "body": l["body"]}).to_string());
        cassette.push('\n');
    }
    std::fs::write(expected.join("expected.jsonl"), cassette).unwrap();
    assert_same_outcomes(&evaluate_with(&snap, tmp.path(), "captured"), &evaluate_with(&expected, tmp.path(), "expected"));
}

#[test]
fn a_rerun_resumes_and_a_refresh_asks_with_etags() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(demo_bodies(), HashMap::new());
    let snap = tmp.path().join("snap");
    assert!(capture(&server, &snap, &[]).status.success());
    let first = server.requests.load(Ordering::SeqCst);
    let lines = std::fs::read_to_string(snap.join("capture.jsonl")).unwrap().lines().count();
    // A kill mid-write leaves a torn line: the next run cuts it and asks for that path only.
    let mut f = std::fs::OpenOptions::new().append(true).open(snap.join("capture.jsonl")).unwrap();
    f.write_all(b"{\"path\": \"repos/acme/api/pulls/999\", \"sta").unwrap();
    drop(f);
    let out = capture(&server, &snap, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    assert_eq!(server.requests.load(Ordering::SeqCst), first, "a complete capture asks for nothing again");
    assert_eq!(std::fs::read_to_string(snap.join("capture.jsonl")).unwrap().lines().count(), lines);
    // --refresh asks again with If-None-Match: every 2xx REST answer is a 304 (no body sent),
    // kept with the new time; 404s, which carry no ETag, are asked for plainly.
    let ok_paths: BTreeSet<String> = std::fs::read_to_string(snap.join("capture.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["status"] == 200 && l["path"].as_str().unwrap().starts_with("repos/"))
        .map(|l| l["path"].as_str().unwrap().to_string())
        .collect();
    let out = capture(&server, &snap, &["--refresh"]);
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!(", {} unchanged,", ok_paths.len())), "{} paths with 200: {err}", ok_paths.len());
}

#[test]
fn a_capture_killed_at_any_moment_resumes_without_torn_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let bodies = demo_bodies();
    // Slow answers (pages of one item) so that the kill lands mid-capture.
    let quirks: HashMap<String, Quirk> = bodies.iter().filter(|(_, b)| b.is_array()).map(|(p, _)| (p.clone(), Quirk::Pages(1))).collect();
    let server = serve(bodies, quirks);
    let snap = tmp.path().join("snap");
    let runs = fixture("demo/runs");
    let mut child = std::process::Command::new(bin())
        .args(["capture", "--runs", runs.to_str().unwrap(), "--out", snap.to_str().unwrap(), "--api-url", &server.url, "--concurrency", "1"])
        .env("GITHUB_TOKEN", TOKEN)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while server.requests.load(Ordering::SeqCst) < 40 {
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = capture(&server, &snap, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(snap.join("capture.jsonl")).unwrap();
    assert!(text.ends_with('\n'));
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("every line whole")).collect();
    // Each path's latest group is complete, and nothing the first run finished was asked twice
    // (only the path in flight at the kill may have been).
    let mut per_path: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    for l in &lines {
        per_path.entry(l["path"].as_str().unwrap().to_string()).or_default().insert(l["page"].as_u64().unwrap());
    }
    for (p, pages) in &per_path {
        let n = lines.iter().find(|l| l["path"] == **p).unwrap()["pages"].as_u64().unwrap();
        assert_eq!(pages.len() as u64, n, "{p}");
    }
    // One complete fetch of a path is one request per page: more is a path asked for again,
    // which only the one in flight at the kill may be.
    let mut hits: HashMap<String, usize> = HashMap::new();
    for h in server.hits.lock().unwrap().iter() {
        *hits.entry(h.clone()).or_default() += 1;
    }
    let again: Vec<&String> = per_path.iter().filter(|(p, pages)| hits.get(*p).copied().unwrap_or(0) > pages.len()).map(|(p, _)| p).collect();
    assert!(again.len() <= 1, "asked for again: {again:?}");
}

#[test]
fn the_plan_lists_every_request_the_evaluation_uses() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = Study::demo();
    let mut planned = planned(tmp.path());
    assert!(planned.len() > 50, "{planned:?}");
    let elsewhere = planned_elsewhere(tmp.path());
    assert!(elsewhere.iter().all(|p| p.starts_with("graphql/")), "{elsewhere:?}");
    planned.extend(elsewhere);
    // Only the planned captures of the recorded snapshot, as a cassette.
    let only = tmp.path().join("only");
    std::fs::create_dir_all(&only).unwrap();
    let mut cassette = String::new();
    for (path, body) in demo_bodies() {
        if planned.contains(&path) {
            cassette.push_str(&serde_json::json!({"path": path, "status": 200, "body": body}).to_string());
            cassette.push('\n');
        }
    }
    for f in std::fs::read_dir(&demo.snapshot).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "jsonl") {
            for line in std::fs::read_to_string(&p).unwrap().lines().filter(|l| !l.trim().is_empty()) {
                let v: Value = serde_json::from_str(line).unwrap();
                if v["status"].as_u64().unwrap_or(200) != 200 && planned.contains(v["path"].as_str().unwrap()) {
                    cassette.push_str(line);
                    cassette.push('\n');
                }
            }
        }
    }
    std::fs::write(only.join("planned.jsonl"), cassette).unwrap();
    let all = demo.run(tmp.path(), "all");
    assert_same_outcomes(&evaluate_with(&only, tmp.path(), "planned"), &outcomes(&all));
}

/// A looked-up path as a template: the fixture repository dropped, numbers, ids and SHAs
/// named.
fn template(path: &str) -> Option<String> {
    let (kind, rest) = if let Some(r) = path.strip_prefix("repos/acme/repo/") {
        ("", r)
    } else if let Some(r) = path.strip_prefix("graphql/repos/acme/repo/") {
        ("graphql: ", r)
    } else if path.starts_with("graphql/projects/") {
        return Some("graphql: projects/{owner}/{n}".into());
    } else if path == "repos/acme/repo" {
        return Some("(the repository)".into());
    } else {
        return None;
    };
    let mut out = Vec::new();
    let segs: Vec<&str> = rest.split('/').collect();
    for (i, seg) in segs.iter().enumerate() {
        let prev = if i > 0 { segs[i - 1] } else { "" };
        let t = if seg.contains("...") {
            "{base}...{head}".to_string()
        } else if !seg.is_empty() && seg.chars().all(|c| c.is_ascii_digit()) {
            match prev {
                "comments" | "runs" | "alerts" | "releases" | "events" => "{id}".to_string(),
                _ => "{n}".to_string(),
            }
        } else if seg.len() >= 7 && seg.chars().all(|c| c.is_ascii_hexdigit()) {
            "{sha}".to_string()
        } else {
            seg.to_string()
        };
        out.push(t);
    }
    Some(format!("{kind}{}", out.join("/")))
}

/// docs/CAPTURE.md: per safe-output type, the paths its rule declares it reads, over every
/// fixture case of every rule. Every path a rule looks up while judging a case (an
/// observing index notes them) is declared: what capture asks the rules is what they
/// read. It must not go stale: rerun with HINDSIGHT_BLESS=1 to write it.
#[test]
fn the_capture_table_is_generated_from_the_rules() {
    let mut table: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut undeclared: BTreeSet<String> = BTreeSet::new();
    for e in std::fs::read_dir(fixture("rules")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let cases: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for case in cases {
            let ty = case["item"]["type"].as_str().unwrap_or("?").to_string();
            let (looked, read) = super::support::paths_looked_up_and_read(&case, hindsight::evaluate::window::DEFAULT);
            let name = case["name"].as_str().unwrap_or("?");
            undeclared.extend(looked.difference(&read).map(|p| format!("{ty} ({name}): {p}")));
            table.entry(ty).or_default().extend(read.iter().filter_map(|p| template(p)));
        }
    }
    assert!(undeclared.is_empty(), "paths rules look up without declaring them in `rules::reads`:\n{}", undeclared.into_iter().collect::<Vec<_>>().join("\n"));
    let mut doc = String::from(
        "# What capture asks for\n\n\
         Generated from the rules (`tests/it/capture.rs` asks `rules::reads` what each rule reads\n\
         for every fixture case of every rule, and checks that a rule looks up nothing it does not\n\
         declare; `HINDSIGHT_BLESS=1 cargo test capture_table` rewrites it). `hindsight capture`\n\
         asks the rules the same at run time, one round at a time as answers arrive, for the study's\n\
         own outputs (`capture --plan` prints them); paths are relative to\n\
         `repos/OWNER/REPO/`, `graphql:` ones are asked for with GraphQL (`schemas/graphql.md`). For\n\
         every target repository capture also takes the repository, `commits` since the earliest\n\
         action and the closed `pulls`, which revert detection reads.\n\n\
         For a PR an output opened or pushed to, the PR risk (`pr_risk`) reads its changed files\n\
         (`pulls/{n}/files`) and, for the dependents of the changed code, the tree of its base\n\
         commit (`git/trees/{sha}`, asked with `recursive=1`; the sha is `pulls/{n}`'s\n\
         `base.sha`) and then the text of its source files in the changed files' languages\n\
         (`git/blobs/{sha}`, the blob the tree names). A repository's every source file is one\n\
         request each: capture asks for at most 2000 of them per PR, the first by path\n\
         (`MAX_SOURCE_FILES` in `crates/hindsight-evaluate/src/evaluate/dependents.rs`). The\n\
         fixture cases below name no base commit, so these do not show in the table.\n\n\
         | safe-output type | paths its rule reads |\n|---|---|\n",
    );
    for (ty, paths) in &table {
        let list: Vec<String> = paths.iter().map(|p| format!("`{p}`")).collect();
        doc.push_str(&format!("| `{ty}` | {} |\n", if list.is_empty() { "(none: no repository outcome)".to_string() } else { list.join(", ") }));
    }
    let file = super::support::root().join("docs/CAPTURE.md");
    if std::env::var_os("HINDSIGHT_BLESS").is_some() {
        std::fs::write(&file, &doc).unwrap();
    }
    let committed = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(committed == doc, "docs/CAPTURE.md is stale: run `HINDSIGHT_BLESS=1 cargo test capture_table`");
    // Every rule with a repository outcome reads its target.
    assert!(table["create_pull_request"].contains("pulls/{n}"), "{:?}", table["create_pull_request"]);
    assert!(table["add_comment"].iter().any(|p| p.starts_with("issues/")), "{:?}", table["add_comment"]);
}

/// Real recorded bodies (fixtures/real: hossain-khan/github-stats PR 27 and its timeline,
/// verbatim) served by the replay server, the timeline in pages of one event: the capture
/// holds them byte for byte (pages joined) and judges the PR as a hand-made snapshot of the
/// same bodies does.
#[test]
fn real_recorded_bodies_captured_page_by_page_are_judged_as_recorded() {
    let tmp = tempfile::tempdir().unwrap();
    let real =
        |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(fixture(&format!("real/bodies/hossain-khan-github-stats/{f}"))).unwrap()).unwrap() };
    let (pull, timeline) = (real("pull-github-stats-27-merged.json"), real("timeline-github-stats-pr27-merged.json"));
    let mut bodies = BTreeMap::new();
    bodies.insert("repos/hossain-khan/github-stats/pulls/27".to_string(), pull.clone());
    bodies.insert("repos/hossain-khan/github-stats/issues/27/timeline".to_string(), timeline.clone());
    let quirks: HashMap<String, Quirk> = [("repos/hossain-khan/github-stats/issues/27/timeline".to_string(), Quirk::Pages(1))].into_iter().collect();
    let server = serve(bodies.clone(), quirks);
    // A run that opened that PR.
    let item =
        serde_json::json!({"type": "create_pull_request", "url": "https://github.com/hossain-khan/github-stats/pull/27", "timestamp": pull["created_at"]});
    Study::at(tmp.path()).item("1", "hossain-khan/github-stats", item);
    let snap = tmp.path().join("snap");
    let out = std::process::Command::new(bin())
        .args(["capture", "--runs", "runs", "--out", "snap", "--api-url", &server.url, "--retry-base-ms", "10"])
        .current_dir(tmp.path())
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> = std::fs::read_to_string(snap.join("capture.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let pages: Vec<&Value> = lines.iter().filter(|l| l["path"] == "repos/hossain-khan/github-stats/issues/27/timeline").collect();
    assert_eq!(pages.len(), timeline.as_array().unwrap().len());
    let joined: Vec<Value> = pages.iter().flat_map(|p| p["body"].as_array().unwrap().clone()).collect();
    assert_eq!(Value::Array(joined), timeline);
    assert_eq!(lines.iter().find(|l| l["path"] == "repos/hossain-khan/github-stats/pulls/27").unwrap()["body"], pull);

    // The same bodies by hand, with 404 wherever the server had nothing.
    let hand = tmp.path().join("hand");
    std::fs::create_dir_all(&hand).unwrap();
    let mut cassette = String::new();
    for (p, b) in &bodies {
        cassette.push_str(&serde_json::json!({"path": p, "body": b}).to_string());
        cassette.push('\n');
    }
    for l in lines.iter().filter(|l| l["status"] == 404) {
        cassette.push_str(&serde_json::json!({"path": l["path"], "status": 404, "body": l["body"]}).to_string());
        cassette.push('\n');
    }
    std::fs::write(hand.join("hand.jsonl"), cassette).unwrap();
    untimed(&snap);
    for d in [&snap, &hand] {
        std::fs::write(d.join("snapshot.json"), r#"{"format": "hindsight-snapshot/1", "captured_at": "2026-01-01T00:00:00Z"}"#).unwrap();
    }
    let (a, b) = (outcomes(&Study::new("snap", "runs").run(tmp.path(), "a")), outcomes(&Study::new("hand", "runs").run(tmp.path(), "b")));
    assert_same_outcomes(&a, &b);
    assert!(a.iter().any(|r| r["human_check_signal"] == "pull_request_merged_by_requester"), "{a:?}");
}

/// A runs directory of one run that opened PR 1 of `o/r`: capture asks for the repository,
/// its commits and closed pulls, then what the rule reads of the PR.
fn one_pr_runs(tmp: &Path) -> std::path::PathBuf {
    let item = serde_json::json!({"type": "create_pull_request", "url": "https://github.com/o/r/pull/1", "timestamp": "2026-01-01T00:00:00Z"});
    Study::at(tmp).item("1", "o/r", item).runs.clone()
}

/// `capture` of `runs` into `snap` from `api_url`, the token in GITHUB_TOKEN.
fn capture_from(api_url: &str, runs: &Path, snap: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["capture", "--runs", runs.to_str().unwrap(), "--out", snap.to_str().unwrap(), "--api-url", api_url, "--retry-base-ms", "10"];
    args.extend_from_slice(extra);
    std::process::Command::new(bin()).args(&args).env("GITHUB_TOKEN", TOKEN).env_remove("GH_TOKEN").output().unwrap()
}

fn cassette(snap: &Path) -> Vec<Value> {
    std::fs::read_to_string(snap.join("capture.jsonl")).unwrap_or_default().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn hits_of(server: &Server, path: &str) -> usize {
    server.hits.lock().unwrap().iter().filter(|h| *h == path).count()
}

/// A listener that answers every request with a 200 and records whether it carried a token.
fn listener_elsewhere() -> (String, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    let (requests, with_token) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (r, t) = (requests.clone(), with_token.clone());
    std::thread::spawn(move || {
        for stream in l.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut lines = Vec::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                lines.push(line.to_ascii_lowercase());
            }
            r.fetch_add(1, Ordering::SeqCst);
            if lines.iter().any(|l| l.starts_with("authorization:")) {
                t.fetch_add(1, Ordering::SeqCst);
            }
            let mut out = stream;
            let _ = write!(out, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n[]");
        }
    });
    (url, requests, with_token)
}

/// Class: requests followed to wherever a page says. A next page on another origin (here
/// another port of the same host) is not asked for, so the token never goes there; the path
/// is a failed capture saying why, and the run exits non-zero.
#[test]
fn a_next_page_on_another_origin_is_not_asked_and_the_token_stays_home() {
    let tmp = tempfile::tempdir().unwrap();
    let (elsewhere, requests, with_token) = listener_elsewhere();
    let quirks: HashMap<String, Quirk> = [("repos/o/r/commits".to_string(), Quirk::LinkTo(format!("{elsewhere}/repos/o/r/commits?page=2")))].into();
    let server = serve(BTreeMap::new(), quirks);
    let snap = tmp.path().join("snap");
    let out = capture_from(&server.url, &one_pr_runs(tmp.path()), &snap, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(with_token.load(Ordering::SeqCst), 0, "the token went to another origin");
    assert_eq!(requests.load(Ordering::SeqCst), 0, "another origin was asked: {err}");
    let lines = cassette(&snap);
    let commits: Vec<&Value> = lines.iter().filter(|l| l["path"] == "repos/o/r/commits").collect();
    assert_eq!(commits.len(), 1, "{commits:?}");
    assert_eq!(commits[0]["status"], 502);
    assert!(commits[0]["body"]["message"].as_str().unwrap().contains("another host"), "{commits:?}");
    assert!(err.contains("repos/o/r/commits") && err.contains("not followed"), "{err}");
}

/// Class: the lock taken from the path as typed. A symlink to the snapshot directory and a
/// path through `..` find the lock a running capture holds.
#[test]
fn the_lock_holds_whatever_way_the_snapshot_directory_is_typed() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), HashMap::new());
    let runs = one_pr_runs(tmp.path());
    let snap = tmp.path().join("snap");
    std::fs::create_dir_all(snap.join("sub")).unwrap();
    let link = tmp.path().join("link");
    std::os::unix::fs::symlink(&snap, &link).unwrap();
    // Held here as a running capture holds it.
    let real = std::fs::canonicalize(&snap).unwrap();
    let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(real.parent().unwrap().join(".snap.lock")).unwrap();
    lock.try_lock().unwrap();
    for typed in [link.clone(), snap.join("sub/.."), snap.join("./")] {
        let out = capture_from(&server.url, &runs, &typed, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains("another hindsight capture"), "{}: {err}", typed.display());
    }
    assert_eq!(server.requests.load(Ordering::SeqCst), 0);
    lock.unlock().unwrap();
    // Free again: the symlink writes into the directory it points to.
    let out = capture_from(&server.url, &runs, &link, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(snap.join("capture.jsonl").is_file() && snap.join("snapshot.json").is_file());
    assert!(std::fs::read_dir(&snap).unwrap().all(|e| !e.unwrap().file_name().to_string_lossy().starts_with(".hindsight-spool")));
}

/// `capture` run as a child of its own: its exit code, stderr and peak resident memory
/// (bytes), from `wait4` on that child alone.
// The child is reaped by `wait4` below, which `Child` does not see.
#[allow(clippy::zombie_processes)]
fn capture_measured(api_url: &str, runs: &Path, snap: &Path, tmp: &Path) -> (Option<i32>, String, u64) {
    let err_file = tmp.join("stderr.txt");
    let child = std::process::Command::new(bin())
        .args(["capture", "--runs", runs.to_str().unwrap(), "--out", snap.to_str().unwrap(), "--api-url", api_url, "--retry-base-ms", "10"])
        .args(["--concurrency", "1"])
        .env("GITHUB_TOKEN", TOKEN)
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an rusage of zeroes is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid);
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    (code, std::fs::read_to_string(&err_file).unwrap_or_default(), usage.ru_maxrss as u64 * 1024)
}

/// Class: memory that grows with the size of a path's pages. Four pages of 32 MB: a path
/// whose fifth page fails is never held whole (each page goes to a spool file as it
/// arrives, and is dropped with it), and one whose four pages are all captured is held
/// about once (the rules read every capture between rounds), not once per copy.
#[test]
fn a_capture_of_big_pages_holds_about_one_page_in_memory() {
    const MB: u64 = 1 << 20;
    let page = 32 * MB;
    // The process itself (code, threads, the rules) takes about 50 MB. Held as before (the
    // pages, their cassette lines, the writer's buffer, the store's copy), the failed path
    // would take over 4 pages more, and the captured one over 12. The bounds leave a page
    // or two of room for the allocator's timing on a loaded machine (measured alone: 84 and
    // 213 MB; beside the whole suite on 2 cores: 144 MB for the failed path).
    let base = 64 * MB;
    for (fail_after, bound) in [(true, base + 3 * page), (false, base + 8 * page)] {
        let tmp = tempfile::tempdir().unwrap();
        let big = Quirk::Big { pages: 4, bytes: page as usize, fail_after };
        let server = serve(BTreeMap::new(), [("repos/o/r/commits".to_string(), big)].into());
        let snap = tmp.path().join("snap");
        let started = std::time::Instant::now();
        let (code, err, peak) = capture_measured(&server.url, &one_pr_runs(tmp.path()), &snap, tmp.path());
        eprintln!("big pages (fail_after {fail_after}): peak {} MB in {:?}", peak / MB, started.elapsed());
        assert_eq!(code, Some(if fail_after { 1 } else { 0 }), "{err}");
        assert!(peak < bound, "peak {} MB, over {} MB (fail_after {fail_after})", peak / MB, bound / MB);
        let lines = cassette(&snap);
        let commits: Vec<&Value> = lines.iter().filter(|l| l["path"] == "repos/o/r/commits").collect();
        if fail_after {
            assert_eq!((commits.len(), &commits[0]["status"]), (1, &Value::from(500)));
        } else {
            assert_eq!(commits.len(), 4);
            assert!(commits.iter().all(|l| l["body"][0]["sha"].as_str().unwrap().len() == page as usize && l["pages"] == 4));
        }
    }
}

/// Class: an answer stored as final although it cannot be read. A 200 whose body is not
/// JSON is asked again with backoff, then recorded as a failed capture (asked again by the
/// next run), and the run exits non-zero.
#[test]
fn a_200_that_is_not_json_is_asked_again_then_recorded_as_failed() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), [("repos/o/r".to_string(), Quirk::NotJson)].into());
    let (runs, snap) = (one_pr_runs(tmp.path()), tmp.path().join("snap"));
    let out = capture_from(&server.url, &runs, &snap, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(hits_of(&server, "repos/o/r"), 6, "the first request and 5 retries");
    let repo: Vec<Value> = cassette(&snap).into_iter().filter(|l| l["path"] == "repos/o/r").collect();
    assert_eq!(repo.len(), 1);
    assert_eq!(repo[0]["status"], 502);
    assert!(repo[0]["body"]["message"].as_str().unwrap().contains("not JSON"), "{repo:?}");
    let out = capture_from(&server.url, &runs, &snap, &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(hits_of(&server, "repos/o/r"), 12, "a re-run asks again");
}

/// Class: redirects. A renamed or transferred repository answers its old name with a
/// same-origin redirect (GitHub: 301 to `/repositories/ID/...`): followed with the token
/// (the server refuses any request without it), so a private repository is captured, never
/// recorded as deleted. A redirect to another host is not followed: the token never goes
/// there, and the path is a failed capture naming the target. Each redirect code.
#[test]
fn redirects_keep_the_token_at_home_and_a_renamed_repository_is_not_deleted() {
    for code in [301u16, 302, 303, 307, 308] {
        let tmp = tempfile::tempdir().unwrap();
        let pull = serde_json::json!({"number": 1, "state": "open", "user": {"login": "agent-app[bot]", "type": "Bot"}});
        let bodies: BTreeMap<String, Value> = [("repositories/42/pulls/1".to_string(), pull.clone())].into();
        // `{base}`: the server's own URL, known once it listens.
        let quirks: HashMap<String, Quirk> = [("repos/o/r/pulls/1".to_string(), Quirk::Redirect(code, "{base}/repositories/42/pulls/1".into()))].into();
        let server = serve(bodies, quirks);
        let snap = tmp.path().join("snap");
        let out = capture_from(&server.url, &one_pr_runs(tmp.path()), &snap, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        let lines = cassette(&snap);
        let got: Vec<&Value> = lines.iter().filter(|l| l["path"] == "repos/o/r/pulls/1").collect();
        assert_eq!(got.len(), 1, "{code}: {err}");
        assert_eq!(got[0]["status"], 200, "{code}: the renamed repository's PR, captured: {err}");
        assert_eq!(got[0]["body"]["number"], 1, "{code}");
        assert_eq!(hits_of(&server, "repositories/42/pulls/1"), 1, "{code}: followed once, with the token");

        // Elsewhere: not asked, the token stays home, the path fails naming the target.
        let tmp = tempfile::tempdir().unwrap();
        let (elsewhere, requests, with_token) = listener_elsewhere();
        let quirks: HashMap<String, Quirk> = [("repos/o/r/pulls/1".to_string(), Quirk::Redirect(code, format!("{elsewhere}/repositories/42/pulls/1")))].into();
        let server = serve(BTreeMap::new(), quirks);
        let snap = tmp.path().join("snap");
        let out = capture_from(&server.url, &one_pr_runs(tmp.path()), &snap, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{code}: {err}");
        assert_eq!((requests.load(Ordering::SeqCst), with_token.load(Ordering::SeqCst)), (0, 0), "{code}: another host was asked");
        let lines = cassette(&snap);
        let got: Vec<&Value> = lines.iter().filter(|l| l["path"] == "repos/o/r/pulls/1").collect();
        assert_eq!(got[0]["status"], 502, "{code}");
        let message = got[0]["body"]["message"].as_str().unwrap();
        assert!(message.contains("another host") && message.contains(&elsewhere), "{code}: {message}");
        assert_eq!(hits_of(&server, "repos/o/r/pulls/1"), 1, "{code}: a refused redirect is not asked again");
    }
}

/// Class: pagination bounded only by --max-pages. A page whose next link is a page already
/// read ends the list.
#[test]
fn a_page_that_links_to_itself_ends_the_list() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), [("repos/o/r/commits".to_string(), Quirk::SelfLink)].into());
    let snap = tmp.path().join("snap");
    let out = capture_from(&server.url, &one_pr_runs(tmp.path()), &snap, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(hits_of(&server, "repos/o/r/commits"), 1);
    let commits: Vec<Value> = cassette(&snap).into_iter().filter(|l| l["path"] == "repos/o/r/commits").collect();
    assert_eq!(commits.len(), 1);
    assert_eq!((&commits[0]["status"], &commits[0]["body"]), (&Value::from(200), &serde_json::json!([1])));
    assert!(err.contains("links back to a page already read"), "{err}");
}

/// Class: waits nobody is told of. A `Retry-After` is waited out and said on stderr: which
/// path, how long, why.
#[test]
fn a_rate_limit_wait_is_said_on_stderr() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), [("repos/o/r".to_string(), Quirk::Secondary)].into());
    let out = capture_from(&server.url, &one_pr_runs(tmp.path()), &tmp.path().join("snap"), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("repos/o/r: waiting 1 s before asking again (the server answered 403 with Retry-After: 1)"), "{err}");
    assert_eq!(hits_of(&server, "repos/o/r"), 2);
}

/// Class: a rate limit whose reset is further off than capture waits (a day). The path is
/// recorded as failed without waiting, and the paths asked after it are not made to wait an
/// hour each: the run ends, saying so.
#[test]
fn a_far_off_rate_limit_reset_fails_the_path_without_stalling_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), [("repos/o/r".to_string(), Quirk::PrimaryFar)].into());
    let out = capture_from(&server.url, &one_pr_runs(tmp.path()), &tmp.path().join("snap"), &["--concurrency", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("repos/o/r: not waiting"), "{err}");
    assert!(err.contains("asked without waiting") || server.requests.load(Ordering::SeqCst) > 1, "{err}");
    assert!(hits_of(&server, "repos/o/r/pulls/1") >= 1, "the other paths were asked: {err}");
}

/// Class: an --api-url taken as typed. One that is not a URL, not http(s), or has no host is
/// a usage error before anything is asked or written.
#[test]
fn a_bad_api_url_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let runs = one_pr_runs(tmp.path());
    for bad in ["http://[::1", "ftp://example.com", "https://", "http://exa mple.com", "api.github.com", "http://:80"] {
        let snap = tmp.path().join("snap");
        let out = capture_from(bad, &runs, &snap, &[]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad}: {err}");
        assert!(err.contains("--api-url"), "{bad}: {err}");
        assert!(!snap.exists(), "{bad}: wrote {}", snap.display());
    }
}

/// Class: a token no header can carry (CR/LF, non-ASCII) is refused before any request,
/// naming the variable and never showing the token.
#[test]
fn a_token_no_header_can_carry_is_refused_naming_its_variable() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), HashMap::new());
    let runs = one_pr_runs(tmp.path());
    for bad in ["ghp_abc\r\nX-Injected: 1", "ghp_äbc", "ghp abc"] {
        let snap = tmp.path().join("snap");
        let out = std::process::Command::new(bin())
            .args(["capture", "--runs", runs.to_str().unwrap(), "--out", snap.to_str().unwrap(), "--api-url", &server.url])
            .env("GITHUB_TOKEN", bad)
            .env_remove("GH_TOKEN")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {err}");
        assert!(err.contains("GITHUB_TOKEN") && err.contains("not sent"), "{bad:?}: {err}");
        assert!(!err.contains("ghp"), "the token shown: {err}");
    }
    assert_eq!(server.requests.load(Ordering::SeqCst), 0, "a request went out");
}

/// Class: a run that failed reported as a success. When every request fails, what was
/// answered is written and the run exits 1 saying how many failed and which.
#[test]
fn a_capture_whose_requests_all_failed_exits_non_zero() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), [("*".to_string(), Quirk::Broken)].into());
    let snap = tmp.path().join("snap");
    let out = capture_from(&server.url, &one_pr_runs(tmp.path()), &snap, &["--concurrency", "8"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let lines = cassette(&snap);
    assert!(!lines.is_empty() && lines.iter().all(|l| l["status"] == 500), "{lines:?}");
    let said = err.lines().find(|l| l.starts_with("hindsight: capture:")).unwrap_or_else(|| panic!("{err}"));
    assert!(said.contains(&format!("{} of {} paths fetched failed", lines.len(), lines.len())) && said.contains("repos/o/r (500)"), "{said}");
    assert!(snap.join("snapshot.json").is_file());
}

/// Class: credentials written where they do not belong. A user name or password in
/// --api-url is refused (the token goes in GITHUB_TOKEN), so snapshot.json never holds one.
#[test]
fn credentials_in_the_api_url_never_reach_snapshot_json() {
    let tmp = tempfile::tempdir().unwrap();
    let server = serve(BTreeMap::new(), HashMap::new());
    let runs = one_pr_runs(tmp.path());
    let snap = tmp.path().join("snap");
    let with_user = server.url.replace("http://", "http://researcher:s3cret@");
    let out = capture_from(&with_user, &runs, &snap, &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("user name or password") && err.contains("GITHUB_TOKEN") && !err.contains("s3cret"), "{err}");
    assert_eq!(server.requests.load(Ordering::SeqCst), 0);
    assert!(!snap.join("snapshot.json").exists());
    // Without them, snapshot.json names the API root as given.
    let out = capture_from(&server.url, &runs, &snap, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let info: Value = serde_json::from_str(&std::fs::read_to_string(snap.join("snapshot.json")).unwrap()).unwrap();
    assert_eq!(info["api_url"], server.url);
}

mod properties {
    //! The page parser and the cassette's recovery over arbitrary input: no panic, and an
    //! answer that comes from the input.

    use std::path::Path;

    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

    use hindsight::capture::http::next_link;
    use hindsight::capture::store::{Store, CASSETTE};

    fn runner(cases: u32, seed: u8) -> TestRunner {
        let config = Config { cases, failure_persistence: None, max_shrink_iters: 256, ..Config::default() };
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]))
    }

    /// Link headers: arbitrary text, and parts shaped like GitHub's with arbitrary pieces.
    fn link_header() -> impl Strategy<Value = String> {
        let part = (".{0,20}", prop_oneof![Just("next"), Just("last"), Just("prev"), Just(""), Just("ne xt")], "[ ;,<>\"=a-z]{0,6}")
            .prop_map(|(url, rel, junk)| format!("<{url}>; rel=\"{rel}\"{junk}"));
        prop_oneof![".{0,80}", proptest::collection::vec(part, 0..5).prop_map(|p| p.join(", ")), "[<>;,=\" a-z/:.]{0,60}"]
    }

    #[test]
    fn next_link_never_panics_and_answers_from_the_header() {
        runner(2000, 11)
            .run(&link_header(), |h| {
                if let Some(url) = next_link(&h) {
                    prop_assert!(h.contains(&url), "{url:?} is not in {h:?}");
                }
                Ok(())
            })
            .unwrap();
    }

    /// A cassette of a few groups as capture writes them.
    fn valid_cassette() -> Vec<u8> {
        let mut s = String::new();
        for (path, pages) in [("repos/o/r", 1), ("repos/o/r/commits", 3), ("repos/o/r/pulls/1", 1), ("repos/o/r/pulls", 2)] {
            for p in 1..=pages {
                let body = if pages == 1 { serde_json::json!({"id": 1, "s": "é\"x"}) } else { serde_json::json!([{"page": p}]) };
                let etag = if p == 1 { ",\"etag\":\"\\\"e\\\"\"" } else { "" };
                s.push_str(&format!(
                    "{{\"path\":\"{path}\",\"status\":200,\"page\":{p},\"pages\":{pages},\"captured_at\":\"2026-01-01T00:00:00Z\",\"request\":\"{path}?per_page=100\"{etag},\"body\":{body}}}\n"
                ));
            }
        }
        s.into_bytes()
    }

    #[derive(Clone, Debug)]
    enum Garble {
        Truncate(usize),
        Flip(usize, u8),
        Insert(usize, Vec<u8>),
        Anything(Vec<u8>),
    }

    fn garble() -> impl Strategy<Value = Vec<Garble>> {
        let one = prop_oneof![
            any::<usize>().prop_map(Garble::Truncate),
            (any::<usize>(), 1..=255u8).prop_map(|(i, b)| Garble::Flip(i, b)),
            (any::<usize>(), proptest::collection::vec(any::<u8>(), 1..8)).prop_map(|(i, b)| Garble::Insert(i, b)),
            proptest::collection::vec(any::<u8>(), 0..200).prop_map(Garble::Anything),
        ];
        proptest::collection::vec(one, 1..4)
    }

    fn apply(mut bytes: Vec<u8>, changes: &[Garble]) -> Vec<u8> {
        for c in changes {
            match c {
                Garble::Truncate(n) => bytes.truncate(n % (bytes.len() + 1)),
                Garble::Flip(i, b) if !bytes.is_empty() => {
                    let i = i % bytes.len();
                    bytes[i] ^= b;
                }
                Garble::Flip(..) => {}
                Garble::Insert(i, b) => {
                    let i = i % (bytes.len() + 1);
                    bytes.splice(i..i, b.iter().copied());
                }
                Garble::Anything(b) => bytes = b.clone(),
            }
        }
        bytes
    }

    fn open_checked(dir: &Path) -> Result<(), TestCaseError> {
        match Store::open(dir) {
            Ok(store) => {
                // Every group kept is whole, and each body reads back as JSON.
                for (path, pages) in &store.groups {
                    prop_assert!(pages.iter().enumerate().all(|(i, p)| p.page == i + 1 && p.pages == pages.len()), "{path}: {pages:?}");
                    for p in pages {
                        let body = store.body(p).map_err(|e| TestCaseError::fail(e.to_string()))?;
                        prop_assert!(serde_json::from_str::<serde_json::Value>(&body).is_ok(), "{path}: {body:?}");
                    }
                }
                // What it kept opens again as it is: nothing more to cut.
                let again = Store::open(dir).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(again.cut, 0);
                prop_assert_eq!(again.groups.len(), store.groups.len());
            }
            Err(e) => prop_assert!(e.to_string().contains(CASSETTE), "an error that does not say where: {e}"),
        }
        Ok(())
    }

    use proptest::test_runner::TestCaseError;

    #[test]
    fn a_garbled_cassette_opens_or_says_why() {
        let tmp = tempfile::tempdir().unwrap();
        let valid = valid_cassette();
        runner(300, 12)
            .run(&garble(), |changes| {
                let dir = tmp.path().join("snap");
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join(CASSETTE), apply(valid.clone(), &changes)).unwrap();
                open_checked(&dir)
            })
            .unwrap();
        // Cut anywhere, as a kill would: always opens, keeping the whole groups before the cut.
        for n in 0..=valid.len() {
            let dir = tmp.path().join("cut");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(CASSETTE), &valid[..n]).unwrap();
            let store = Store::open(&dir).unwrap_or_else(|e| panic!("cut at {n}: {e}"));
            let kept = std::fs::metadata(dir.join(CASSETTE)).unwrap().len();
            assert_eq!(kept + store.cut, n as u64);
        }
    }
}
