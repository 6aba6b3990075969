//! Real-shaped bodies for `hindsight synth`: every key GitHub's REST API sends for the
//! endpoints synth captures, nested as in the recorded bodies of `fixtures/real/bodies/`.
//! A real pull is kilobytes of URLs, users and repository objects the evaluator skips; a
//! benchmark on the compact bodies alone would under-measure parsing.
//!
//! Each function takes the compact body synth drew and lays it over a full template: the
//! compact body's values win, so every key the evaluator reads keeps its value and the
//! judged outcomes do not change. The extra values are mixed from what was already drawn
//! (repository, number, ids), never from the study's generator, so a study with and
//! without `--compact` shares every drawn value.

use serde_json::{json, Map, Value};

const API: &str = "https://api.github.com";
const WEB: &str = "https://github.com";

/// A number mixed from a few inputs (splitmix's finalizer): ids, shas and counts that look
/// real and are the same on every run, without a draw from the study's generator.
fn mix(parts: &[u64]) -> u64 {
    let mut z = 0x243f_6a88_85a3_08d3u64;
    for p in parts {
        z = super::finalize((z ^ p).wrapping_add(0x9e37_79b9_7f4a_7c15));
    }
    z
}

/// FNV-1a of a name, so a login or repository gets the same id wherever it appears.
fn name_hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3))
}

/// A GitHub global node id: the type's prefix and a base64-like tail.
fn node_id(prefix: &str, id: u64) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut tail = String::new();
    let mut v = mix(&[id, name_hash(prefix)]);
    for _ in 0..11 {
        tail.push(ALPHABET[(v % 64) as usize] as char);
        v /= 64;
    }
    format!("{prefix}_kwDO{tail}")
}

/// A 40-hex commit sha mixed from its inputs.
fn sha(parts: &[u64]) -> String {
    let m = mix(parts);
    format!("{m:016x}{:016x}{:08x}", mix(&[m]), mix(&[m, 1]) as u32)
}

/// A timestamp in the years before the study, for a repository's creation and the like.
fn stamp(h: u64) -> String {
    format!("20{:02}-{:02}-{:02}T{:02}:{:02}:{:02}Z", 18 + h % 7, 1 + h / 7 % 12, 1 + h / 97 % 28, h / 13 % 24, h / 29 % 60, h / 31 % 60)
}

/// An object of `(key, value)` pairs.
fn obj(pairs: Vec<(&str, Value)>) -> Map<String, Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// Lay `compact` over `template`: the compact value wins, a compact user (`login`, `type`)
/// becomes a full user, and objects on both sides merge key by key.
fn overlay(mut template: Map<String, Value>, compact: &Value) -> Value {
    let Some(c) = compact.as_object() else { return compact.clone() };
    for (k, v) in c {
        let merged = match (template.get_mut(k), v) {
            (_, Value::Object(u)) if u.contains_key("login") && u.contains_key("type") => user_of(v),
            (Some(Value::Object(t)), Value::Object(_)) => overlay(std::mem::take(t), v),
            _ => v.clone(),
        };
        template.insert(k.clone(), merged);
    }
    Value::Object(template)
}

/// The full user object of a compact one (`login`, `type`, `id`): a null stays null.
pub(super) fn user_of(compact: &Value) -> Value {
    if compact.is_null() {
        return Value::Null;
    }
    let login = compact.get("login").and_then(Value::as_str).unwrap_or("ghost");
    let kind = compact.get("type").and_then(Value::as_str).unwrap_or("User");
    let id = compact.get("id").and_then(Value::as_u64).unwrap_or_else(|| name_hash(login) % 100_000_000);
    full_user(login, kind, id)
}

/// A user as the REST API embeds it: the user's API and web URLs, its avatar, `type` and
/// `site_admin` (the 2025 shape, with `user_view_type`). Bots live under `apps/`.
pub(super) fn full_user(login: &str, kind: &str, id: u64) -> Value {
    let bot = login.strip_suffix("[bot]");
    let api = format!("{API}/users/{}", login.replace('[', "%5B").replace(']', "%5D"));
    let html = match bot {
        Some(app) => format!("{WEB}/apps/{app}"),
        None => format!("{WEB}/{login}"),
    };
    let prefix = match kind {
        "Bot" => "BOT",
        "Organization" => "O",
        _ => "U",
    };
    let avatar = if bot.is_some() { format!("https://avatars.githubusercontent.com/in/{}?v=4", id % 100_000) } else { format!("https://avatars.githubusercontent.com/u/{id}?v=4") };
    let mut m = obj(vec![("login", json!(login)), ("id", json!(id)), ("node_id", json!(node_id(prefix, id))), ("avatar_url", json!(avatar)), ("gravatar_id", json!("")), ("url", json!(api)), ("html_url", json!(html))]);
    for (key, tail) in [
        ("followers_url", "/followers"),
        ("following_url", "/following{/other_user}"),
        ("gists_url", "/gists{/gist_id}"),
        ("starred_url", "/starred{/owner}{/repo}"),
        ("subscriptions_url", "/subscriptions"),
        ("organizations_url", "/orgs"),
        ("repos_url", "/repos"),
        ("events_url", "/events{/privacy}"),
        ("received_events_url", "/received_events"),
    ] {
        m.insert(key.into(), json!(format!("{api}{tail}")));
    }
    m.insert("type".into(), json!(kind));
    m.insert("user_view_type".into(), json!("public"));
    m.insert("site_admin".into(), json!(false));
    Value::Object(m)
}

/// The URL templates of a repository object, after its API URL, in GitHub's order.
const REPO_URLS: &[(&str, &str)] = &[
    ("forks_url", "/forks"),
    ("keys_url", "/keys{/key_id}"),
    ("collaborators_url", "/collaborators{/collaborator}"),
    ("teams_url", "/teams"),
    ("hooks_url", "/hooks"),
    ("issue_events_url", "/issues/events{/number}"),
    ("events_url", "/events"),
    ("assignees_url", "/assignees{/user}"),
    ("branches_url", "/branches{/branch}"),
    ("tags_url", "/tags"),
    ("blobs_url", "/git/blobs{/sha}"),
    ("git_tags_url", "/git/tags{/sha}"),
    ("git_refs_url", "/git/refs{/sha}"),
    ("trees_url", "/git/trees{/sha}"),
    ("statuses_url", "/statuses/{sha}"),
    ("languages_url", "/languages"),
    ("stargazers_url", "/stargazers"),
    ("contributors_url", "/contributors"),
    ("subscribers_url", "/subscribers"),
    ("subscription_url", "/subscription"),
    ("commits_url", "/commits{/sha}"),
    ("git_commits_url", "/git/commits{/sha}"),
    ("comments_url", "/comments{/number}"),
    ("issue_comment_url", "/issues/comments{/number}"),
    ("contents_url", "/contents/{+path}"),
    ("compare_url", "/compare/{base}...{head}"),
    ("merges_url", "/merges"),
    ("archive_url", "/{archive_format}{/ref}"),
    ("downloads_url", "/downloads"),
    ("issues_url", "/issues{/number}"),
    ("pulls_url", "/pulls{/number}"),
    ("milestones_url", "/milestones{/number}"),
    ("notifications_url", "/notifications{?since,all,participating}"),
    ("labels_url", "/labels{/name}"),
    ("releases_url", "/releases{/id}"),
    ("deployments_url", "/deployments"),
];

/// A repository as a pull's `head.repo` and `base.repo` carry it: owner, every URL
/// template, clone URLs, counts, licence and flags. Owned by its organization.
pub(super) fn repo_object(full_name: &str) -> Value {
    let (owner, name) = full_name.split_once('/').unwrap_or((full_name, full_name));
    let h = name_hash(full_name);
    let (id, api) = (h % 900_000_000 + 100_000_000, format!("{API}/repos/{full_name}"));
    let mut m = obj(vec![
        ("id", json!(id)),
        ("node_id", json!(node_id("R", id))),
        ("name", json!(name)),
        ("full_name", json!(full_name)),
        ("private", json!(false)),
        ("owner", full_user(owner, "Organization", name_hash(owner) % 100_000_000)),
        ("html_url", json!(format!("{WEB}/{full_name}"))),
        ("description", json!(format!("The {name} service of {owner}"))),
        ("fork", json!(false)),
        ("url", json!(api)),
    ]);
    for (key, tail) in REPO_URLS {
        m.insert((*key).into(), json!(format!("{api}{tail}")));
    }
    let (stars, forks, issues) = (h % 5000, h / 7 % 800, h / 11 % 300);
    m.extend(obj(vec![
        ("created_at", json!(stamp(h))),
        ("updated_at", json!("2026-05-31T12:00:00Z")),
        ("pushed_at", json!("2026-05-31T23:00:00Z")),
        ("git_url", json!(format!("git://github.com/{full_name}.git"))),
        ("ssh_url", json!(format!("git@github.com:{full_name}.git"))),
        ("clone_url", json!(format!("{WEB}/{full_name}.git"))),
        ("svn_url", json!(format!("{WEB}/{full_name}"))),
        ("homepage", Value::Null),
        ("size", json!(h / 13 % 90_000)),
        ("stargazers_count", json!(stars)),
        ("watchers_count", json!(stars)),
        ("language", json!(["Rust", "Python", "TypeScript", "Go"][(h % 4) as usize])),
    ]));
    m.extend(repo_flags(forks, issues, stars));
    Value::Object(m)
}

/// The tail of a repository object: feature flags, counts, licence and default branch.
fn repo_flags(forks: u64, issues: u64, stars: u64) -> Map<String, Value> {
    let license = json!({"key": "mit", "name": "MIT License", "spdx_id": "MIT", "url": format!("{API}/licenses/mit"), "node_id": "MDc6TGljZW5zZTEz"});
    obj(vec![
        ("has_issues", json!(true)),
        ("has_projects", json!(true)),
        ("has_downloads", json!(true)),
        ("has_wiki", json!(false)),
        ("has_pages", json!(false)),
        ("forks_count", json!(forks)),
        ("mirror_url", Value::Null),
        ("archived", json!(false)),
        ("disabled", json!(false)),
        ("open_issues_count", json!(issues)),
        ("license", license),
        ("allow_forking", json!(true)),
        ("is_template", json!(false)),
        ("web_commit_signoff_required", json!(false)),
        ("topics", json!([])),
        ("visibility", json!("public")),
        ("forks", json!(forks)),
        ("open_issues", json!(issues)),
        ("watchers", json!(stars)),
        ("default_branch", json!("main")),
    ])
}

/// A pull's `_links`: its API, web, issue, comments, review comments, commits and the head
/// commit's statuses.
pub(super) fn pull_links(repo: &str, n: i64, head_sha: &str) -> Value {
    let api = format!("{API}/repos/{repo}");
    json!({"self": {"href": format!("{api}/pulls/{n}")}, "html": {"href": format!("{WEB}/{repo}/pull/{n}")}, "issue": {"href": format!("{api}/issues/{n}")},
        "comments": {"href": format!("{api}/issues/{n}/comments")}, "review_comments": {"href": format!("{api}/pulls/{n}/comments")},
        "review_comment": {"href": format!("{api}/pulls/comments{{/number}}")}, "commits": {"href": format!("{api}/pulls/{n}/commits")},
        "statuses": {"href": format!("{api}/statuses/{head_sha}")}})
}

/// A branch end of a pull (`head` or `base`): `owner:ref`, the sha, the owner and the repo.
fn branch(repo: &str, git_ref: &str, sha: &str) -> Value {
    let owner = repo.split('/').next().unwrap_or(repo);
    json!({"label": format!("{owner}:{git_ref}"), "ref": git_ref, "sha": sha, "user": full_user(owner, "Organization", name_hash(owner) % 100_000_000), "repo": repo_object(repo)})
}

/// How the author stands to the repository: bots and agents are outsiders, people members.
fn association(user: &Value) -> &'static str {
    match user.get("type").and_then(Value::as_str) {
        Some("User") => "MEMBER",
        _ => "NONE",
    }
}

/// A reactions summary, all zero as the compact bodies have it.
fn reactions(url: String) -> Value {
    json!({"url": url, "total_count": 0, "+1": 0, "-1": 0, "laugh": 0, "hooray": 0, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0})
}

/// An integer field of a compact body (0 when absent).
fn num(v: &Value, key: &str) -> i64 {
    v.get(key).and_then(Value::as_i64).unwrap_or_default()
}

/// A string at a path of a compact body (empty when absent).
fn text_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    path.iter().try_fold(v, |v, k| v.get(k)).and_then(Value::as_str).unwrap_or_default()
}

/// `GET repos/O/R/pulls/N`, shaped after `pull-github-stats-27-merged.json`.
pub(super) fn pull(repo: &str, compact: &Value) -> Value {
    let n = num(compact, "number");
    let (api, h) = (format!("{API}/repos/{repo}"), mix(&[name_hash(repo), n as u64]));
    let (head_ref, head_sha) = (text_at(compact, &["head", "ref"]), text_at(compact, &["head", "sha"]));
    let merged = compact.get("merged").and_then(Value::as_bool).unwrap_or(false);
    let id = h % 2_000_000_000 + 100_000_000;
    let mut m = obj(vec![
        ("url", json!(format!("{api}/pulls/{n}"))),
        ("id", json!(id)),
        ("node_id", json!(node_id("PR", id))),
        ("html_url", json!(format!("{WEB}/{repo}/pull/{n}"))),
        ("diff_url", json!(format!("{WEB}/{repo}/pull/{n}.diff"))),
        ("patch_url", json!(format!("{WEB}/{repo}/pull/{n}.patch"))),
        ("issue_url", json!(format!("{api}/issues/{n}"))),
        ("number", json!(n)),
        ("state", Value::Null),
        ("locked", json!(false)),
    ]);
    for key in ["title", "user", "body", "created_at", "updated_at", "closed_at", "merged_at", "merge_commit_sha"] {
        m.insert(key.into(), Value::Null);
    }
    m.extend(obj(vec![
        ("assignee", Value::Null),
        ("assignees", json!([])),
        ("requested_reviewers", json!([])),
        ("requested_teams", json!([])),
        ("labels", json!([])),
        ("milestone", Value::Null),
        ("draft", json!(false)),
        ("commits_url", json!(format!("{api}/pulls/{n}/commits"))),
        ("review_comments_url", json!(format!("{api}/pulls/{n}/comments"))),
        ("review_comment_url", json!(format!("{api}/pulls/comments{{/number}}"))),
        ("comments_url", json!(format!("{api}/issues/{n}/comments"))),
        ("statuses_url", json!(format!("{api}/statuses/{head_sha}"))),
        ("head", branch(repo, head_ref, head_sha)),
        ("base", branch(repo, "main", &sha(&[h, 2]))),
        ("_links", pull_links(repo, n, head_sha)),
        ("author_association", json!(association(&compact["user"]))),
        ("auto_merge", Value::Null),
        ("active_lock_reason", Value::Null),
    ]));
    m.extend(pull_tail(h, merged));
    overlay(m, compact)
}

/// The counts at the end of a pull: mergeability (unknown once merged, as GitHub leaves
/// it), comments, commits and the diff's size.
fn pull_tail(h: u64, merged: bool) -> Map<String, Value> {
    let mergeable = if merged { Value::Null } else { json!(true) };
    obj(vec![
        ("merged", json!(merged)),
        ("mergeable", mergeable.clone()),
        ("rebaseable", mergeable),
        ("mergeable_state", json!(if merged { "unknown" } else { "clean" })),
        ("merged_by", Value::Null),
        ("comments", json!(h % 5)),
        ("review_comments", json!(h / 5 % 4)),
        ("maintainer_can_modify", json!(false)),
        ("commits", json!(1 + h / 20 % 6)),
        ("additions", json!(1 + h / 120 % 400)),
        ("deletions", json!(h / 48_000 % 120)),
        ("changed_files", json!(1 + h / 5_760_000 % 12)),
    ])
}

/// `GET repos/O/R/issues/N`, shaped after `issue-28-plain-issue-modern-fields-2025.json`.
/// `closed_by` stays null, as the compact body implies: the evaluator reads it, and a closer
/// named there settles closes the events do not reach (a close after the capture) otherwise.
pub(super) fn issue(repo: &str, compact: &Value) -> Value {
    let n = num(compact, "number");
    let (api, h) = (format!("{API}/repos/{repo}"), mix(&[name_hash(repo), n as u64]));
    let id = h % 2_000_000_000 + 100_000_000;
    let mut m = obj(vec![
        ("url", json!(format!("{api}/issues/{n}"))),
        ("repository_url", json!(api)),
        ("labels_url", json!(format!("{api}/issues/{n}/labels{{/name}}"))),
        ("comments_url", json!(format!("{api}/issues/{n}/comments"))),
        ("events_url", json!(format!("{api}/issues/{n}/events"))),
        ("html_url", json!(format!("{WEB}/{repo}/issues/{n}"))),
        ("id", json!(id)),
        ("node_id", json!(node_id("I", id))),
    ]);
    for key in ["number", "title", "user", "labels", "state", "locked", "assignee", "assignees", "milestone", "comments", "created_at", "updated_at", "closed_at"] {
        m.insert(key.into(), Value::Null);
    }
    m.extend(obj(vec![
        ("locked", json!(false)),
        ("author_association", json!(association(&compact["user"]))),
        ("type", Value::Null),
        ("active_lock_reason", Value::Null),
        ("sub_issues_summary", json!({"total": 0, "completed": 0, "percent_completed": 0})),
        ("issue_dependencies_summary", json!({"blocked_by": 0, "total_blocked_by": 0, "blocking": 0, "total_blocking": 0})),
        ("body", Value::Null),
        ("closed_by", Value::Null),
        ("reactions", reactions(format!("{api}/issues/{n}/reactions"))),
        ("timeline_url", json!(format!("{api}/issues/{n}/timeline"))),
        ("performed_via_github_app", Value::Null),
        ("state_reason", Value::Null),
    ]));
    overlay(m, compact)
}

/// A label as `issues/N/labels` lists it, and as an issue or pull embeds it.
pub(super) fn label(repo: &str, name: &str) -> Value {
    let id = mix(&[name_hash(repo), name_hash(name)]) % 9_000_000_000 + 1_000_000_000;
    json!({"id": id, "node_id": node_id("LA", id), "url": format!("{API}/repos/{repo}/labels/{name}"), "name": name,
        "color": format!("{:06x}", name_hash(name) % 0x100_0000), "default": name == "bug", "description": format!("{name}, as the triage guide uses it")})
}

/// `GET repos/O/R/issues/N/labels`: each compact `{name}` as the full label.
pub(super) fn labels(repo: &str, compact: &Value) -> Value {
    map_items(compact, |l| overlay(label(repo, text_at(l, &["name"])).as_object().cloned().unwrap_or_default(), l))
}

/// Each item of a list body shaped by `f` (a body that is not a list as it is).
fn map_items(list: &Value, f: impl Fn(&Value) -> Value) -> Value {
    match list.as_array() {
        Some(items) => Value::Array(items.iter().map(f).collect()),
        None => list.clone(),
    }
}

/// `GET repos/O/R/issues/N/events`, shaped after the `labeled`, `closed` and `merged` items
/// of the recorded timelines: node id, URL, commit (the merge commit for `merged`, none
/// otherwise, so no close reads as closed by a commit), app, and the label's colour.
pub(super) fn events(repo: &str, compact: &Value, merge_sha: Option<&str>) -> Value {
    map_items(compact, |e| {
        let id = num(e, "id");
        let kind = text_at(e, &["event"]);
        let prefix = match kind {
            "labeled" => "LE",
            "unlabeled" => "UNLE",
            "closed" => "CE",
            "merged" => "ME",
            _ => "E",
        };
        let commit = if kind == "merged" { merge_sha } else { None };
        let mut m = obj(vec![
            ("id", json!(id)),
            ("node_id", json!(node_id(prefix, id as u64))),
            ("url", json!(format!("{API}/repos/{repo}/issues/events/{id}"))),
            ("actor", Value::Null),
            ("event", json!(kind)),
            ("commit_id", json!(commit)),
            ("commit_url", json!(commit.map(|c| format!("{API}/repos/{repo}/commits/{c}")))),
            ("created_at", Value::Null),
        ]);
        if let Some(name) = e.get("label").map(|l| text_at(l, &["name"])) {
            m.insert("label".into(), json!({"name": name, "color": format!("{:06x}", name_hash(name) % 0x100_0000)}));
        }
        if kind == "closed" {
            m.insert("state_reason".into(), Value::Null);
        }
        m.insert("performed_via_github_app".into(), Value::Null);
        overlay(m, e)
    })
}

/// `GET repos/O/R/issues/N/comments`, shaped after the `commented` items of the recorded
/// timelines (less `event` and `actor`, which only the timeline adds): URLs, node id,
/// `updated_at` (never edited: the time it was written), association and reactions.
pub(super) fn comments(repo: &str, n: i64, compact: &Value) -> Value {
    map_items(compact, |c| {
        let id = num(c, "id");
        let api = format!("{API}/repos/{repo}/issues");
        let m = obj(vec![
            ("url", json!(format!("{api}/comments/{id}"))),
            ("html_url", json!(format!("{WEB}/{repo}/issues/{n}#issuecomment-{id}"))),
            ("issue_url", json!(format!("{api}/{n}"))),
            ("id", json!(id)),
            ("node_id", json!(node_id("IC", id as u64))),
            ("user", Value::Null),
            ("created_at", Value::Null),
            ("updated_at", c.get("created_at").cloned().unwrap_or(Value::Null)),
            ("author_association", json!(association(&c["user"]))),
            ("body", Value::Null),
            ("reactions", reactions(format!("{api}/comments/{id}/reactions"))),
            ("performed_via_github_app", Value::Null),
        ]);
        overlay(m, c)
    })
}

/// `GET repos/O/R/pulls/N/reviews`, shaped after `pulls-538-reviews-2018.json` with the
/// node id later bodies carry: web and pull URLs, `_links`, and the head commit reviewed.
pub(super) fn reviews(repo: &str, n: i64, compact: &Value, head_sha: &str) -> Value {
    map_items(compact, |rv| {
        let id = num(rv, "id");
        let html = format!("{WEB}/{repo}/pull/{n}#pullrequestreview-{id}");
        let pull = format!("{API}/repos/{repo}/pulls/{n}");
        let m = obj(vec![
            ("id", json!(id)),
            ("node_id", json!(node_id("PRR", id as u64))),
            ("user", Value::Null),
            ("body", Value::Null),
            ("state", Value::Null),
            ("html_url", json!(html)),
            ("pull_request_url", json!(pull)),
            ("author_association", json!(association(&rv["user"]))),
            ("_links", json!({"html": {"href": html}, "pull_request": {"href": pull}})),
            ("submitted_at", Value::Null),
            ("commit_id", json!(head_sha)),
        ]);
        overlay(m, rv)
    })
}
