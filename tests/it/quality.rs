//! Code-quality findings (tier 2; docs/TASKS.md "Code-quality findings"): each rule on a
//! PR's files, firing and not, at each severity; the quality policy (a repository's
//! overrides, the blocking severity, bad files refused); a language without a grammar; the
//! table's order; a PR whose files were not captured; real `pulls/N/files` bodies
//! (fixtures/real/pull-files, sources in its README); and the demo's findings with their
//! dashboard section.
//!
//! The code in the fixtures below was written for these tests, in each language's ordinary
//! style; the real bodies are the github3.py recordings.

use serde_json::{json, Value};

use hindsight::evaluate::quality::{findings_of, policy::QualityPolicy, FindingRow, Severity};

use super::support::{ok, root, run};

/// A file the PR adds: every line of `text` added, one hunk.
fn added(name: &str, text: &str) -> Value {
    let lines: Vec<&str> = text.lines().collect();
    let patch = format!("@@ -0,0 +1,{} @@\n{}", lines.len(), lines.iter().map(|l| format!("+{l}")).collect::<Vec<_>>().join("\n"));
    json!({"filename": name, "status": "added", "additions": lines.len(), "deletions": 0, "patch": patch})
}

/// A file the PR modifies, with `patch` as given.
fn modified(name: &str, patch: &str) -> Value {
    json!({"filename": name, "status": "modified", "patch": patch})
}

fn findings(files: &[Value]) -> Vec<FindingRow> {
    findings_of(files, "o/r", &QualityPolicy::default())
}

/// (rule, severity, file, line) of each finding.
fn brief(rows: &[FindingRow]) -> Vec<(&str, Severity, &str, Option<i64>)> {
    rows.iter().map(|r| (r.rule, r.severity, r.file.as_str(), r.line)).collect()
}

/// The same routing function in each language with a grammar, with 11 decision points
/// each (cyclomatic complexity 12): `if` with `||`, an `else if`, a loop over headers with
/// an `if` and `&&`, a `while` (Go: a counted `for`), then four cases and a default (Rust,
/// Go: match arms or switch cases; Python, Java, JavaScript: `except`/`catch`, a ternary
/// and two cases, Python an `if` with `and`).
const ROUTE: [(&str, &str); 7] = [
    (
        "src/route.rs",
        r#"fn route(req: &Request, cfg: &Config) -> Result<Response, Error> {
    if req.path.is_empty() || req.method.is_empty() {
        return Err(Error::BadRequest);
    } else if req.body.len() > cfg.max_body {
        return Err(Error::TooLarge);
    }
    for header in &req.headers {
        if header.name == "expect" && !cfg.allow_expect {
            return Err(Error::Expectation);
        }
    }
    let mut tries = 0;
    while tries < cfg.retries {
        tries += 1;
    }
    match req.method.as_str() {
        "GET" => Ok(cfg.get(&req.path)),
        "POST" => Ok(cfg.post(&req.path, &req.body)),
        "DELETE" if cfg.allow_delete => Ok(cfg.delete(&req.path)),
        "HEAD" => Ok(Response::empty()),
        _ => Err(Error::Method),
    }
}"#,
    ),
    (
        "app/route.py",
        r#"def route(request, config):
    if not request.path or not request.method:
        raise BadRequest()
    elif len(request.body) > config.max_body:
        raise TooLarge()
    for header in request.headers:
        if header.name == "expect" and not config.allow_expect:
            raise Expectation()
    tries = 0
    while tries < config.retries:
        tries += 1
    try:
        handler = config.handlers[request.method]
    except KeyError:
        raise MethodNotAllowed()
    status = 200 if handler.idempotent else 201
    if request.stream and status == 200:
        status = 206
    return handler(request, status)"#,
    ),
    (
        "pkg/route.go",
        r#"package route

func route(req *Request, cfg *Config) (*Response, error) {
	if req.Path == "" || req.Method == "" {
		return nil, ErrBadRequest
	} else if len(req.Body) > cfg.MaxBody {
		return nil, ErrTooLarge
	}
	for _, h := range req.Headers {
		if h.Name == "expect" && !cfg.AllowExpect {
			return nil, ErrExpectation
		}
	}
	for tries := 0; tries < cfg.Retries; tries++ {
	}
	switch req.Method {
	case "GET":
		return cfg.Get(req.Path), nil
	case "POST":
		return cfg.Post(req.Path, req.Body), nil
	case "DELETE":
		return cfg.Delete(req.Path), nil
	case "HEAD":
		return &Response{}, nil
	default:
		return nil, ErrMethod
	}
}"#,
    ),
    (
        "src/main/java/Router.java",
        r#"class Router {
    public Response route(Request req, Config cfg) {
        if (req.path.isEmpty() || req.method.isEmpty()) {
            throw new BadRequest();
        } else if (req.body.length > cfg.maxBody) {
            throw new TooLarge();
        }
        for (Header h : req.headers) {
            if (h.name.equals("expect") && !cfg.allowExpect) {
                throw new Expectation();
            }
        }
        int tries = 0;
        while (tries < cfg.retries) {
            tries++;
        }
        try {
            return cfg.handler(req.method).handle(req);
        } catch (NoSuchHandler e) {
            int status = cfg.strict ? 405 : 404;
            switch (status) {
                case 405: return Response.status(405);
                case 404: return Response.status(404);
                default: return Response.status(500);
            }
        }
    }
}"#,
    ),
    ("web/route.js", JS_ROUTE),
    ("web/route.ts", TS_ROUTE),
    ("web/Route.tsx", TS_ROUTE),
];

const JS_ROUTE: &str = r#"function route(req, cfg) {
  if (!req.path || !req.method) {
    throw new BadRequest();
  } else if (req.body.length > cfg.maxBody) {
    throw new TooLarge();
  }
  for (const h of req.headers) {
    if (h.name === "expect" && !cfg.allowExpect) {
      throw new Expectation();
    }
  }
  let tries = 0;
  while (tries < cfg.retries) {
    tries++;
  }
  try {
    return cfg.handler(req.method)(req);
  } catch (e) {
    const status = cfg.strict ? 405 : 404;
    switch (status) {
      case 405: return respond(405);
      case 404: return respond(404);
      default: return respond(500);
    }
  }
}"#;

const TS_ROUTE: &str = r#"function route(req: Request, cfg: Config): Response {
  if (!req.path || !req.method) {
    throw new BadRequest();
  } else if (req.body.length > cfg.maxBody) {
    throw new TooLarge();
  }
  for (const h of req.headers) {
    if (h.name === "expect" && !cfg.allowExpect) {
      throw new Expectation();
    }
  }
  let tries: number = 0;
  while (tries < cfg.retries) {
    tries++;
  }
  try {
    return cfg.handler(req.method)(req);
  } catch (e) {
    const status = cfg.strict ? 405 : 404;
    switch (status) {
      case 405: return respond(405);
      case 404: return respond(404);
      default: return respond(500);
    }
  }
}"#;

/// Complexity 12 in every language, counted from its tree: one `warning` each at the
/// function's first line, none of the other rules (the names are conventional). Over twice
/// a threshold of 5 it is an `error`, and blocking; under a threshold of 12, nothing.
#[test]
fn complex_function_counts_decisions_in_every_language() {
    for (name, code) in ROUTE {
        let rows = findings(&[added(name, code)]);
        let line = if name.ends_with(".go") { 3 } else if name.ends_with(".java") { 2 } else { 1 };
        assert_eq!(brief(&rows), [("complex_function", Severity::Warning, name, Some(line))], "{name}: {rows:#?}");
        assert_eq!(rows[0].message, "Function `route` has cyclomatic complexity 12 (threshold: 10)", "{name}");
        assert!(!rows[0].blocking && rows[0].suggestion.contains("Split `route`"));
        let strict = QualityPolicy { complexity_threshold: 5, ..Default::default() };
        let rows = findings_of(&[added(name, code)], "o/r", &strict);
        assert_eq!((rows[0].severity, rows[0].blocking), (Severity::Error, true), "{name}");
        let lax = QualityPolicy { complexity_threshold: 12, ..Default::default() };
        assert!(findings_of(&[added(name, code)], "o/r", &lax).is_empty(), "{name}");
    }
}

/// A function the PR does not touch (its lines are context) is not measured, however
/// complex; one an added line falls inside is, at its line in the new file.
#[test]
fn complex_function_measures_only_the_functions_the_pr_touches() {
    let (_, code) = ROUTE[5];
    let context: String = code.lines().map(|l| format!(" {l}\n")).collect();
    let untouched = format!("@@ -40,26 +40,27 @@ class Api {{\n{context}+const limit = 3;");
    assert!(findings(&[modified("web/route.ts", &untouched)]).is_empty());
    // One line added inside: the function is measured, at its line (40) in the new file.
    let mut lines: Vec<String> = code.lines().map(|l| format!(" {l}")).collect();
    lines.insert(13, "+    if (tries > 9) break;".into());
    let touched = format!("@@ -40,26 +40,27 @@ class Api {{\n{}", lines.join("\n"));
    let rows = findings(&[modified("web/route.ts", &touched)]);
    assert_eq!(brief(&rows), [("complex_function", Severity::Warning, "web/route.ts", Some(40))]);
    assert!(rows[0].message.contains("complexity 13"), "{}", rows[0].message);
}

/// Nesting: five levels of control flow is a `warning`, four is not; an `else if` chain is
/// no deeper than its `if`; a nested function is measured on its own.
#[test]
fn complex_function_flags_deep_nesting_not_else_if_chains() {
    let deep = "function sync(items: Item[], store: Store): void {
  for (const item of items) {
    if (item.dirty) {
      try {
        while (item.pending > 0) {
          if (store.accepts(item)) {
            store.put(item);
          }
          item.pending--;
        }
      } catch (e) {
        store.fail(item);
      }
    }
  }
}";
    let rows = findings(&[added("src/sync.ts", deep)]);
    assert_eq!(brief(&rows), [("complex_function", Severity::Warning, "src/sync.ts", Some(1))]);
    assert_eq!(rows[0].message, "Function `sync` nests control flow 5 deep (threshold: 4)");
    assert!(rows[0].suggestion.contains("return early"));
    let four = deep.replace("          if (store.accepts(item)) {\n            store.put(item);\n          }\n", "          store.put(item);\n");
    assert!(findings(&[added("src/sync.ts", &four)]).is_empty());
    let chain = "function level(n: number): string {
  if (n > 90) { return \"a\"; }
  else if (n > 80) { return \"b\"; }
  else if (n > 70) { return \"c\"; }
  else if (n > 60) { return \"d\"; }
  else if (n > 50) { return \"e\"; }
  return \"f\";
}";
    assert!(findings(&[added("src/level.ts", chain)]).is_empty(), "an else-if chain is flat, complexity 6");
    // Two levels in the outer function, three in the callback: neither is deep.
    let nested = "function each(xs: number[][]): void {
  for (const row of xs) {
    if (row.length > 0) {
      row.forEach((x) => {
        for (const y of row) {
          if (x > y) {
            while (x > 0) { x--; }
          }
        }
      });
    }
  }
}";
    // Neither is deep; but cognitive complexity counts the callback's loops inside `each`,
    // weighted by their nesting (1 + 2 + 4 + 5 + 6 = 18): that is its only finding.
    let rows = findings(&[added("src/each.ts", nested)]);
    assert_eq!(rows.iter().map(|r| r.message.as_str()).collect::<Vec<_>>(), ["Function `each` has cognitive complexity 18 (threshold: 15)"]);
}

/// Names declared on added lines against the language's convention (`info`, never
/// blocking), with the name rewritten; conventional names, and bad names on lines the PR
/// did not add, give nothing.
#[test]
fn naming_convention_by_language() {
    let cases: [(&str, &str, &str, &str); 9] = [
        ("src/api.ts", "function get_data(id: string) {\n  return id;\n}", "`get_data` (function) is not camelCase, the TypeScript convention", "Rename it `getData`."),
        ("src/api.js", "const user_name = \"x\";", "`user_name` (variable) is not camelCase or UpperCamelCase or SCREAMING_SNAKE_CASE, the JavaScript convention", "Rename it `userName`."),
        ("src/lib.rs", "fn parseHeader(s: &str) -> u8 {\n    0\n}", "`parseHeader` (function) is not snake_case, the Rust convention", "Rename it `parse_header`."),
        ("src/lib.rs", "struct http_client {\n    url: String,\n}", "`http_client` (type) is not UpperCamelCase, the Rust convention", "Rename it `HttpClient`."),
        ("src/lib.rs", "fn f() {\n    let maxRetries = 3;\n}", "`maxRetries` (variable) is not snake_case, the Rust convention", "Rename it `max_retries`."),
        ("app/tasks.py", "def parseHeader(line):\n    return line", "`parseHeader` (function) is not snake_case, the Python convention", "Rename it `parse_header`."),
        ("app/tasks.py", "class task_handler:\n    pass", "`task_handler` (type) is not UpperCamelCase, the Python convention", "Rename it `TaskHandler`."),
        ("pkg/a.go", "package a\n\nfunc parse_header(s string) int {\n\treturn 0\n}", "`parse_header` (function) is not mixedCaps, the Go convention", "Rename it `parseHeader`."),
        ("A.java", "class A {\n    void Parse_Header() {}\n}", "`Parse_Header` (function) is not camelCase, the Java convention", "Rename it `parseHeader`."),
    ];
    for (file, code, message, suggestion) in cases {
        let rows = findings(&[added(file, code)]);
        assert_eq!(rows.len(), 1, "{file}: {rows:#?}");
        assert_eq!((rows[0].rule, rows[0].severity, rows[0].blocking), ("naming_convention", Severity::Info, false));
        assert_eq!((rows[0].message.as_str(), rows[0].suggestion.as_str()), (message, suggestion), "{file}");
    }
    let fine = [
        ("src/api.ts", "class TaskQueue {\n  pushTask(t: Task): void {}\n}\nconst MAX_TASKS = 3;\nfunction parseHeader(s: string) { return s; }"),
        ("src/App.tsx", "function TaskList() {\n  return null;\n}"),
        ("src/lib.rs", "pub struct HttpClient;\nconst MAX_RETRIES: u8 = 3;\nfn parse_header(_raw: &str) {\n    let max_retries = 3;\n}"),
        ("app/tasks.py", "class TaskHandler:\n    def __init__(self):\n        self._queue = []\n    def _drain(self):\n        pass"),
        ("pkg/a_test.go", "package a\n\nfunc TestParse_empty(t *testing.T) {\n\tmaxRetries := 3\n\t_ = maxRetries\n}"),
    ];
    for (file, code) in fine {
        assert!(findings(&[added(file, code)]).is_empty(), "{file}: {:#?}", findings(&[added(file, code)]));
    }
    // The bad name is on a context line: the PR did not declare it.
    let patch = "@@ -1,3 +1,4 @@\n function get_data(id: string) {\n+  const n = id.length;\n   return id;\n }";
    assert!(findings(&[modified("src/api.ts", patch)]).is_empty());
}

/// A language without a grammar (Ruby, Kotlin, a shell script) gets no complexity or naming
/// finding at all, rather than a guess; duplication, read from lines alone, still applies.
#[test]
fn a_language_without_a_grammar_gets_no_syntax_findings() {
    let ruby = "def Route_request(req)\n  if req.a && req.b || req.c\n    1\n  elsif req.d\n    2\n  end\nend\n".repeat(6);
    let kotlin = "fun Parse_header(s: String): Int {\n    if (s.isEmpty() && s.length > 2 || s == \"x\") return 1\n    return 0\n}";
    let rows = findings(&[added("lib/route.rb", &ruby), added("src/Parse.kt", kotlin), added("bin/run.sh", "if [ -z \"$A\" ] && [ -n \"$B\" ]; then exit 1; fi")]);
    assert!(rows.iter().all(|r| r.rule == "duplicated_block"), "{rows:#?}");
    assert!(!rows.is_empty(), "the repeated Ruby method is a duplicated block");
}

/// A file a tool generated (`Code generated ... DO NOT EDIT.` in its first lines) gets no
/// code finding: its names and repeats are the generator's. The repository's rules apply.
#[test]
fn a_generated_file_gets_no_code_findings() {
    let body = "func (x *Task) Get_task_id() string {\n\tif x != nil && x.Id != \"\" {\n\t\tlog.Printf(\"task %s\", x.Id)\n\t\treturn x.Id\n\t}\n\tlog.Printf(\"no task\")\n\treturn \"\"\n}\n".repeat(2);
    let generated = format!("// Code generated by protoc-gen-go. DO NOT EDIT.\n\npackage tasks\n\n{body}");
    assert!(findings(&[added("pkg/tasks/task.pb.go", &generated)]).is_empty());
    let written = format!("package tasks\n\n{body}");
    let rules: Vec<&str> = findings(&[added("pkg/tasks/task.go", &written)]).iter().map(|r| r.rule).collect();
    assert!(rules.contains(&"duplicated_block") && rules.contains(&"naming_convention"), "{rules:?}");
    let p: QualityPolicy = serde_json::from_value(json!({"forbidden_paths": ["pkg/tasks/"]})).unwrap();
    assert_eq!(findings_of(&[added("pkg/tasks/task.pb.go", &generated)], "o/r", &p).len(), 1);
}

/// Duplication: a block of six or more added lines repeated elsewhere in the PR (another
/// file, re-indented) or equal to lines the patch shows staying in the file; one finding
/// per block, at its first line, naming both places. Five lines is no block; a block the
/// PR removed in one place and added in another is a move; `duplicate_lines` sets the size.
#[test]
fn duplicated_block_within_the_pr_and_against_the_file() {
    let block = "  if (values.length === 0) {\n    throw new Error(\"no values\");\n  }\n  const finite = values.filter((v) => Number.isFinite(v));\n  const sorted = finite.slice().sort((a, b) => a - b);\n  const trimmed = sorted.slice(1, sorted.length - 1);\n  const count = trimmed.length;\n";
    let mean = format!("function meanOf(values: number[]): number {{\n{block}  return trimmed.reduce((s, v) => s + v, 0) / count;\n}}");
    let median = format!("// The middle value.\nfunction medianOf(values: number[]): number {{\n{}  return trimmed[Math.floor(count / 2)];\n}}", block.replace("  ", "    "));
    let rows = findings(&[added("src/mean.ts", &mean), added("src/median.ts", &median)]);
    assert_eq!(brief(&rows), [("duplicated_block", Severity::Warning, "src/median.ts", Some(3))]);
    assert_eq!(rows[0].message, "Lines 3-9 of `src/median.ts` duplicate lines 2-8 of `src/mean.ts` (added in this PR): 6 lines of code");
    assert!(rows[0].suggestion.contains("Extract the shared lines"));
    // Four lines of code (a lone brace does not count): no block; unless the policy asks for 4.
    let five: String = block.lines().take(5).map(|l| format!("{l}\n")).collect();
    let a = added("src/a.ts", &format!("function a(values: number[]) {{\n{five}}}"));
    let b = added("src/b.ts", &format!("function b(values: number[]) {{\n{five}}}"));
    assert!(findings(&[a.clone(), b.clone()]).is_empty());
    let small = QualityPolicy { duplicate_lines: 4, ..Default::default() };
    assert_eq!(findings_of(&[a, b], "o/r", &small).len(), 1);
    // Moved: removed from one file, added to another.
    let removed: String = block.lines().map(|l| format!("-{l}\n")).collect();
    let moved = [modified("src/old.ts", &format!("@@ -10,8 +10,0 @@\n{removed}")), added("src/new.ts", block)];
    assert!(findings(&moved).is_empty());
    // Against lines that stay: the added copy sits under the original in one hunk.
    let kept: String = block.lines().map(|l| format!(" {l}\n")).collect();
    let copy: String = block.lines().map(|l| format!("+{l}\n")).collect();
    let rows = findings(&[modified("src/stats.ts", &format!("@@ -20,7 +20,14 @@ function a() {{\n{kept}{copy}"))]);
    assert_eq!(brief(&rows), [("duplicated_block", Severity::Warning, "src/stats.ts", Some(27))]);
    assert!(rows[0].message.ends_with("duplicate lines 20-26 of `src/stats.ts` (already in the file): 6 lines of code"), "{}", rows[0].message);
    // Lock files and data repeat by nature: not read.
    let lock = "    \"node_modules/a\": {\n      \"version\": \"1.0.0\",\n      \"dev\": true,\n      \"license\": \"MIT\",\n      \"engines\": {\n        \"node\": \">=8\"\n      }\n    },\n".repeat(3);
    assert!(findings(&[added("package-lock.json", &lock)]).is_empty());
}

/// The quality policy of this test: rules for `o/r`, a global forbidden path, and `o/strict`
/// blocking at `warning`.
fn policy() -> QualityPolicy {
    serde_json::from_value(json!({
        "forbidden_paths": ["vendor/"],
        "repositories": {
            "o/r": {
                "forbidden_patterns": [
                    {"pattern": ": any", "message": "repo policy requires explicit types", "paths": ["src/**/*.ts"]},
                    {"pattern": "console\\.(log|debug)\\(", "regex": true, "severity": "error"}
                ],
                "required_headers": [{"header": "SPDX-License-Identifier: MIT", "paths": ["src/"], "within_lines": 2}],
                "forbidden_paths": [".github/workflows/*.yml", "vendor/"]
            },
            "o/strict": {"blocking_severity": "warning", "complexity_threshold": 20}
        }
    }))
    .unwrap()
}

/// The repository's own rules: forbidden patterns (substring, regex; only in their paths),
/// a header a new file must carry in its first lines, paths an agent must not change (a
/// rename out of one counts). Another repository is judged by the global keys alone.
#[test]
fn repository_rule_from_the_quality_policy() {
    let p = policy();
    let files = [
        added("src/handler.ts", "// SPDX-License-Identifier: MIT\nfunction h(e: any) {\n  console.log(e);\n}"),
        added("test/handler.test.ts", "function t(e: any) {}"),
        added("src/util.ts", "// Utilities.\n\n// SPDX-License-Identifier: MIT\nconst x = 1;"),
        modified("src/old.ts", "@@ -1,2 +1,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;"),
        modified(".github/workflows/ci.yml", "@@ -3 +3 @@\n-  run: npm test\n+  run: npm test || true"),
        json!({"filename": "lib/left-pad.js", "previous_filename": "vendor/left-pad.js", "status": "renamed", "patch": "@@ -1 +1 @@\n-a\n+b"}),
    ];
    let rows = findings_of(&files, "o/r", &p);
    let got: Vec<(Severity, bool, &str, Option<i64>, &str)> = rows.iter().map(|r| (r.severity, r.blocking, r.file.as_str(), r.line, r.message.as_str())).collect();
    assert_eq!(
        got,
        [
            (Severity::Error, true, ".github/workflows/ci.yml", Some(3), "`.github/workflows/ci.yml` is under `.github/workflows/*.yml`, which the repository's policy forbids an agent to change (modified)"),
            (Severity::Error, true, "lib/left-pad.js", Some(1), "`vendor/left-pad.js` is under `vendor/`, which the repository's policy forbids an agent to change (renamed)"),
            (Severity::Warning, false, "src/handler.ts", Some(2), "Line 2 of `src/handler.ts` contains `: any`: repo policy requires explicit types"),
            (Severity::Error, true, "src/handler.ts", Some(3), "Line 3 of `src/handler.ts` contains `console\\.(log|debug)\\(`: forbidden by the repository's policy"),
            (Severity::Warning, false, "src/util.ts", Some(1), "New file `src/util.ts` lacks the required header \"SPDX-License-Identifier: MIT\" in its first 2 lines"),
        ]
    );
    assert!(rows.iter().all(|r| r.rule == "repository_rule"));
    assert_eq!(rows[4].suggestion, "Add \"SPDX-License-Identifier: MIT\" at the top of `src/util.ts`.");
    // Another repository: only the global forbidden path.
    let other = findings_of(&files, "o/other", &p);
    assert_eq!(brief(&other), [("repository_rule", Severity::Error, "lib/left-pad.js", Some(1))]);
}

/// The blocking severity is the repository's: `o/strict` blocks at `warning` (and has a
/// complexity threshold of 20), the others at the default `error`.
#[test]
fn the_blocking_severity_is_set_per_repository() {
    let p = policy();
    let deep = "function sync(items: Item[], store: Store): void {\n  for (const item of items) {\n    if (item.dirty) {\n      try {\n        while (item.pending > 0) {\n          if (store.accepts(item)) { store.put(item); }\n          item.pending--;\n        }\n      } catch (e) {}\n    }\n  }\n}";
    let files = [added("src/sync.ts", deep), added("src/api.ts", "function get_data() {}")];
    let judged = |repo: &str| -> Vec<(&'static str, Severity, bool)> { findings_of(&files, repo, &p).iter().map(|r| (r.rule, r.severity, r.blocking)).collect() };
    assert_eq!(judged("o/x"), [("naming_convention", Severity::Info, false), ("complex_function", Severity::Warning, false)]);
    assert_eq!(judged("o/strict"), [("naming_convention", Severity::Info, false), ("complex_function", Severity::Warning, true)]);
    let (_, ts) = ROUTE[5];
    assert!(findings_of(&[added("web/route.ts", ts)], "o/strict", &p).is_empty(), "complexity 12 is under o/strict's threshold of 20");
    assert_eq!(findings_of(&[added("web/route.ts", ts)], "o/x", &p).len(), 1);
}

/// Real bodies (fixtures/real/pull-files, github3.py PRs 235 and 286: two Python methods
/// added to classes, new tests, example data, two one-line cassettes) hold nothing complex,
/// misnamed or copied: no finding, the hunks mid-class and mid-method notwithstanding.
#[test]
fn real_pull_files_bodies() {
    let dir = root().join("fixtures/real/pull-files");
    for name in ["github3py-pulls-235-files-2021.json", "github3py-pulls-286-files-2015.json"] {
        let files: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(dir.join(name)).unwrap()).unwrap();
        assert!(files.iter().all(|f| f["patch"].is_string()), "{name}");
        let rows = findings(&files);
        assert!(rows.is_empty(), "{name}: {rows:#?}");
    }
}

/// `report --sql Q --format json` on the dataset `ds` in `dir`.
fn sql(dir: &std::path::Path, q: &str) -> Vec<Value> {
    serde_json::from_str(&ok(&["report", "--dataset", "ds", "--sql", q, "--format", "json"], dir)).unwrap()
}

/// The demo (fixtures/make_demo.py: PR 130 of acme/webapp adds `src/stats/summary.ts`)
/// under its quality policy (fixtures/demo/quality-policy.json): a finding of every rule,
/// the complex function's `error` blocking; the PRs whose files were not captured (the task
/// PRs 140-147 among them) have none, and the dashboard section counts them; the policy is
/// in the manifest.
#[test]
fn every_rule_on_the_demo_with_the_dashboard_section() {
    let tmp = tempfile::tempdir().unwrap();
    let policy = root().join("fixtures/demo/quality-policy.json");
    ok(&["run", "--out", "ds", "--quiet", "--quality-policy", policy.to_str().unwrap()], tmp.path());
    let rows = sql(tmp.path(), "SELECT * FROM quality_findings ORDER BY repo, pr_number, task_id, safe_output_id, file, line, rule, message");
    let got: Vec<(&str, &str, bool, i64, &str)> = rows
        .iter()
        .map(|r| (r["rule"].as_str().unwrap(), r["severity"].as_str().unwrap(), r["blocking"].as_bool().unwrap(), r["line"].as_i64().unwrap(), r["message"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("repository_rule", "warning", false, 1, "New file `src/stats/summary.ts` lacks the required header \"SPDX-License-Identifier\" in its first 3 lines"),
            ("duplicated_block", "warning", false, 14, "Lines 14-20 of `src/stats/summary.ts` duplicate lines 3-9 of `src/stats/summary.ts` (added in this PR): 6 lines of code"),
            ("complex_function", "warning", false, 24, "Function `classify` has cognitive complexity 30 (threshold: 15)"),
            ("complex_function", "error", true, 24, "Function `classify` has cyclomatic complexity 21 (threshold: 10)"),
            ("complex_function", "warning", false, 24, "Function `classify` nests control flow 5 deep (threshold: 4)"),
            ("repository_rule", "warning", false, 44, "Line 44 of `src/stats/summary.ts` contains `console.log`: log through the stats logger, not the console"),
            ("naming_convention", "info", false, 48, "`summarize_rows` (function) is not camelCase, the TypeScript convention"),
        ]
    );
    for r in &rows {
        assert_eq!((r["repo"].as_str(), r["pr_number"].as_i64(), r["tier"].as_i64()), (Some("acme/webapp"), Some(130), Some(2)));
        assert_eq!((r["safe_output_id"].as_str(), r["task_id"].as_str()), (Some("9009:0"), None));
        assert!(!r["suggestion"].as_str().unwrap().is_empty());
    }
    // A PR whose files were not captured has no finding: the task PRs, every other PR.
    let uncaptured = sql(tmp.path(), "SELECT COUNT(*) AS n FROM quality_findings q JOIN pr_risk r ON r.repo = q.repo AND r.pull_number = q.pr_number WHERE r.risk_level IS NULL");
    assert_eq!(uncaptured[0]["n"], json!(0));
    let counts = sql(
        tmp.path(),
        "SELECT SUM(CASE WHEN c THEN 1 ELSE 0 END) AS assessed, SUM(CASE WHEN c THEN 0 ELSE 1 END) AS not_captured \
         FROM (SELECT DISTINCT repo, pull_number, risk_level IS NOT NULL AS c FROM pr_risk) t",
    );
    assert!(counts[0]["not_captured"].as_i64().unwrap() >= 8, "the task PRs 140-147 at least: {counts:?}");
    // The dashboard: by rule and severity, then every finding; the denominators beside.
    let dash: Value = serde_json::from_str(&ok(&["report", "--dataset", "ds", "--format", "json"], tmp.path())).unwrap();
    let section: Vec<(&str, &str, i64, i64, i64)> = dash["quality_findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["rule"].as_str().unwrap(), r["severity"].as_str().unwrap(), r["findings"].as_i64().unwrap(), r["blocking"].as_i64().unwrap(), r["prs"].as_i64().unwrap()))
        .collect();
    assert_eq!(
        section,
        [
            ("complex_function", "error", 1, 1, 1),
            ("complex_function", "warning", 2, 0, 1),
            ("duplicated_block", "warning", 1, 0, 1),
            ("naming_convention", "info", 1, 0, 1),
            ("repository_rule", "warning", 2, 0, 1),
            ("(all rules)", "(any)", 7, 1, 1),
        ]
    );
    for r in dash["quality_findings"].as_array().unwrap() {
        assert_eq!((&r["prs_assessed"], &r["prs_not_captured"]), (&counts[0]["assessed"], &counts[0]["not_captured"]));
    }
    let m: Value = serde_json::from_str(&std::fs::read_to_string(tmp.path().join("ds/manifest.json")).unwrap()).unwrap();
    assert_eq!(m["quality_policy"]["repositories"]["acme/webapp"]["forbidden_patterns"][0]["pattern"], "console.log");
    assert_eq!(m["quality_policy"]["blocking_severity"], "error");
}

/// Without a policy file the demo has the findings of the three rules that need none, and
/// the defaults are recorded; the table is sorted by its keys as written.
#[test]
fn the_demo_without_a_policy_and_the_order_of_the_rows() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let tmp = tempfile::tempdir().unwrap();
    let ds = super::support::demo(tmp.path());
    let rules = sql(tmp.path(), "SELECT DISTINCT rule FROM quality_findings ORDER BY rule");
    assert_eq!(rules, [json!({"rule": "complex_function"}), json!({"rule": "duplicated_block"}), json!({"rule": "naming_convention"})]);
    let m: Value = serde_json::from_str(&std::fs::read_to_string(ds.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["quality_policy"], QualityPolicy::default().to_json());
    assert!(m["tables"]["quality_findings"]["rows"].as_u64().unwrap() >= 4);
    // As written: sorted by repo, PR, task, output, file, line, rule, message.
    let f = std::fs::File::open(ds.join("quality_findings.parquet")).unwrap();
    let mut keys = Vec::new();
    for b in ParquetRecordBatchReaderBuilder::try_new(f).unwrap().build().unwrap() {
        let b = b.unwrap();
        let text = |c: &str, r: usize| {
            let a = b.column_by_name(c).unwrap().as_any().downcast_ref::<arrow::array::StringArray>().unwrap();
            (!arrow::array::Array::is_null(a, r)).then(|| a.value(r).to_string())
        };
        let int = |c: &str, r: usize| b.column_by_name(c).unwrap().as_any().downcast_ref::<arrow::array::Int64Array>().unwrap().value(r);
        for r in 0..b.num_rows() {
            keys.push((text("repo", r), int("pr_number", r), text("task_id", r), text("safe_output_id", r), text("file", r), int("line", r), text("rule", r), text("message", r)));
        }
    }
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

/// `--quality-policy FILE`: a bad one stops before any work, naming the file and the key.
#[test]
fn a_bad_quality_policy_names_the_file_and_the_field() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        (r#"{"complexity": 12}"#, "`complexity`"),
        (r#"{"duplicate_lines": 1}"#, "`duplicate_lines` must be at least 2"),
        (r#"{"blocking_severity": "fatal"}"#, "`blocking_severity`"),
        (r#"{"forbidden_patterns": [{"pattern": "(", "regex": true}]}"#, "is not a regular expression"),
        (r#"{"repositories": {"acme": {}}}"#, "not `owner/name`"),
        (r#"{"repositories": {"o/r": {"nesting_threshold": 0}}}"#, "`repositories.o/r.nesting_threshold` must be at least 2"),
        (r#"{"repositories": {"o/r": {"thresholds": 3}}}"#, "thresholds"),
        (r#"{"forbidden_paths": [""]}"#, "`forbidden_paths[0]`"),
    ];
    for (i, (text, field)) in cases.iter().enumerate() {
        let p = tmp.path().join(format!("quality-{i}.json"));
        std::fs::write(&p, text).unwrap();
        let out = run(&["run", "--out", &format!("ds{i}"), "--quiet", "--quality-policy", p.to_str().unwrap()], tmp.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{text} was accepted");
        assert!(err.contains(&format!("quality-{i}.json")) && err.contains(field), "{text}: {err}");
        assert!(!tmp.path().join(format!("ds{i}")).exists(), "{text}: a dataset was written");
    }
}

/// schemas/quality-policy.schema.json documents every key with the default the code has,
/// and a repository's overrides with the same keys.
#[test]
fn quality_policy_schema_matches_the_code() {
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(root().join("schemas/quality-policy.schema.json")).unwrap()).unwrap();
    let props = schema["properties"].as_object().unwrap();
    let defaults = QualityPolicy::default().to_json();
    let defaults = defaults.as_object().unwrap();
    let (mut a, mut b): (Vec<&String>, Vec<&String>) = (props.keys().collect(), defaults.keys().collect());
    a.sort();
    b.sort();
    assert_eq!(a, b, "schema properties vs QualityPolicy fields");
    for (k, v) in defaults {
        assert_eq!(&props[k]["default"], v, "default of `{k}`");
    }
    assert_eq!(schema["additionalProperties"], json!(false));
    let mut overrides: Vec<&String> = schema["$defs"]["repository"]["properties"].as_object().unwrap().keys().collect();
    overrides.sort();
    assert_eq!(overrides, a.into_iter().filter(|k| *k != "repositories").collect::<Vec<_>>());
}

/// Cognitive complexity as SonarSource's paper counts it ("Cognitive Complexity", G. Ann
/// Campbell, 2017), on its own examples: `sumOfPrimes` (two nested loops and an `if`: 1 + 2
/// + 3 = 6, where cyclomatic complexity says 4) and `getWords` (one `switch` of four cases:
/// 1, cyclomatic 4); and a JavaScript function with a chain: `if` (1) and its `&&` sequence
/// (1), `else if` (1) and its `||` (1), `else` (1), a loop nested once (2) holding an `if`
/// nested twice (3): 10.
#[test]
fn complex_function_counts_cognitive_complexity_as_sonarsource_does() {
    let primes = "int sumOfPrimes(int max) {\n  int total = 0;\n  for (int i = 1; i <= max; ++i) {\n    for (int j = 2; j < i; ++j) {\n      if (i % j == 0) {\n        continue;\n      }\n    }\n    total += i;\n  }\n  return total;\n}\n";
    let words = "String getWords(int number) {\n  switch (number) {\n    case 1: return \"one\";\n    case 2: return \"a couple\";\n    case 3: return \"a few\";\n    default: return \"lots\";\n  }\n}\n";
    let chain = "function pick(a, b, c) {\n  if (a && b && c) {\n    return 1;\n  } else if (a || b) {\n    return 2;\n  } else {\n    for (const x of c) {\n      if (x) { return 3; }\n    }\n  }\n  return 0;\n}\n";
    let cognitive = |name: &str, code: &str, threshold: i64| -> Vec<String> {
        let java = format!("class A {{\n{code}}}\n");
        let body = if name.ends_with(".java") { java } else { code.to_string() };
        let strict = QualityPolicy { cognitive_threshold: threshold, ..Default::default() };
        findings_of(&[added(name, &body)], "o/r", &strict).into_iter().filter(|r| r.message.contains("cognitive")).map(|r| r.message).collect()
    };
    assert_eq!(cognitive("src/Primes.java", primes, 5), ["Function `sumOfPrimes` has cognitive complexity 6 (threshold: 5)"]);
    assert!(cognitive("src/Primes.java", primes, 6).is_empty());
    assert_eq!(cognitive("src/Words.java", words, 0), ["Function `getWords` has cognitive complexity 1 (threshold: 0)"]);
    assert_eq!(cognitive("web/pick.js", chain, 9), ["Function `pick` has cognitive complexity 10 (threshold: 9)"]);
    assert!(cognitive("web/pick.js", chain, 10).is_empty());
}

/// Naming against the existing code: a TypeScript file whose functions the patch shows are
/// snake_case (`load_rows`, `save_rows`) keeps its own convention. A new `parse_rows` follows
/// it (no finding, though TypeScript's is camelCase); a new `parseRows` breaks it. Where the
/// file shows one such name, or none, the language's convention decides.
#[test]
fn naming_follows_the_files_own_convention_where_it_keeps_one() {
    let patch = |new: &str| format!("@@ -1,6 +1,7 @@\n function load_rows(path: string) {{ return path; }}\n function save_rows(rows: string[]) {{ return rows; }}\n+function {new}(text: string) {{ return text; }}\n");
    assert!(findings(&[modified("src/rows.ts", &patch("parse_rows"))]).is_empty());
    let rows = findings(&[modified("src/rows.ts", &patch("parseRows"))]);
    assert_eq!(rows.iter().map(|r| (r.message.as_str(), r.suggestion.as_str())).collect::<Vec<_>>(), [(
        "`parseRows` (function) is not snake_case, the convention of this file's existing functions",
        "Rename it `parse_rows`, as its neighbours are written."
    )]);
    let one = "@@ -1,2 +1,3 @@\n function load_rows(path: string) { return path; }\n+function parse_rows(text: string) { return text; }\n";
    let rows = findings(&[modified("src/rows.ts", one)]);
    assert_eq!(rows.iter().map(|r| r.message.as_str()).collect::<Vec<_>>(), ["`parse_rows` (function) is not camelCase, the TypeScript convention"]);
}

/// Near duplicates (`near_duplicates`, off by default): a block that repeats another but
/// for its names and literals. Off, the renamed copy is not reported; on, it is, said to be
/// the same but for names and literals; an exact copy is reported either way, as a duplicate.
#[test]
fn near_duplicates_when_the_policy_asks_for_them() {
    let block = |v: &str, n: i64| {
        format!(
            "function check_{v}(input) {{\n  const {v} = input.{v};\n  if ({v} === undefined) {{\n    throw new Error(\"missing {v}\");\n  }}\n  if ({v}.length > {n}) {{\n    return false;\n  }}\n  return true;\n}}\n"
        )
    };
    // Ten lines each, of which the seven with a letter or digit count (`}` lines do not).
    let text = format!("{}{}", block("name", 40), block("email", 120));
    let file = || added("src/checks.js", &text);
    let off = findings(&[file()]);
    assert!(off.iter().all(|r| r.rule != "duplicated_block"), "{off:#?}");
    let on = QualityPolicy { near_duplicates: true, ..Default::default() };
    let rows = findings_of(&[file()], "o/r", &on);
    let dup: Vec<&str> = rows.iter().filter(|r| r.rule == "duplicated_block").map(|r| r.message.as_str()).collect();
    assert_eq!(dup, ["Lines 11-19 of `src/checks.js` nearly duplicate (the same but for names and literals) lines 1-9 of `src/checks.js` (added in this PR): 7 lines of code"]);
}
