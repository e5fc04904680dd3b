//! The judge's verdict: `{"winner", "ranking", "reasons"}` found in what the judge printed (a
//! model wraps it in prose or a ```json fence), checked against the candidates, and kept as
//! `verdict.json` in the run's folder. Reading it is pure; keeping it is one atomic write.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{names, statefile};

/// What the judge decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// The candidate whose work lands.
    pub winner: String,
    /// Candidates best first; the winner first when not empty.
    pub ranking: Vec<String>,
    /// Why: kept as the note of every candidate's review verdict.
    pub reasons: String,
}

/// The verdict in `output`, the judge's stdout: the last JSON object in it that has a `winner`
/// key (an object inside it counts only when the object holding it has no such key), checked
/// against `candidates`. The error says what was wrong, in one line.
pub fn parse(output: &str, candidates: &[&str]) -> Result<Verdict, String> {
    let object = match last_with_winner(output) {
        Found::Object(object) => object,
        Found::Broken(reason) => {
            return Err(format!(
                "the judge's verdict is not valid JSON ({reason}); it must print {}",
                SHAPE
            ));
        }
        Found::Nothing => {
            return Err(format!(
                "the judge printed no JSON object with a \"winner\" key; it must print {}",
                SHAPE
            ));
        }
    };
    validate(&object, candidates)
}

/// The verdict's shape, as errors say it.
const SHAPE: &str = r#"{"winner": "<name>", "ranking": [...], "reasons": "..."}"#;

enum Found {
    Object(Map<String, Value>),
    /// No object with a `winner` key parses, but text that holds one does not parse: why.
    Broken(String),
    Nothing,
}

/// The last object in `text` with a `winner` key. Every `{` is tried as the start of a JSON
/// value; an object with the key is taken whole (what it holds is not searched again), one
/// without it is searched inside. The `result` string of a runtime's JSON output (`claude -p
/// --output-format json`) is searched as text.
fn last_with_winner(text: &str) -> Found {
    let mut found = None;
    let mut broken = None;
    let mut at = 0;
    while let Some(offset) = text[at..].find('{') {
        let start = at + offset;
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        match values.next() {
            Some(Ok(Value::Object(object))) => {
                let end = start + values.byte_offset();
                if object.contains_key("winner") {
                    found = Some(object);
                    at = end;
                    continue;
                }
                if let Some(Value::String(inner)) = object.get("result")
                    && let Found::Object(inner) = last_with_winner(inner)
                {
                    found = Some(inner);
                    at = end;
                    continue;
                }
            }
            Some(Err(e)) if text[start..].contains("\"winner\"") => {
                broken = Some(e.to_string());
            }
            _ => {}
        }
        at = start + 1;
    }
    match (found, broken) {
        (Some(object), _) => Found::Object(object),
        (None, Some(reason)) => Found::Broken(reason),
        (None, None) => Found::Nothing,
    }
}

/// `object` as a verdict among `candidates`.
fn validate(object: &Map<String, Value>, candidates: &[&str]) -> Result<Verdict, String> {
    let listed = || {
        candidates
            .iter()
            .map(|c| format!("'{c}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let winner = match object.get("winner") {
        Some(Value::String(name)) => name.clone(),
        Some(other) => {
            return Err(format!(
                "the judge's \"winner\" is {other}, not a candidate's name; the candidates are {}",
                listed()
            ));
        }
        None => {
            return Err(format!(
                "the judge's verdict has no \"winner\"; it must be {SHAPE}"
            ));
        }
    };
    if !candidates.contains(&winner.as_str()) {
        return Err(format!(
            "the judge's winner '{winner}' is not a candidate; the candidates are {}",
            listed()
        ));
    }
    let ranking = match object.get("ranking") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => {
            let mut ranking = Vec::with_capacity(items.len());
            for item in items {
                let Value::String(name) = item else {
                    return Err(format!(
                        "the judge's \"ranking\" holds {item}, not a candidate's name"
                    ));
                };
                if !candidates.contains(&name.as_str()) {
                    return Err(format!(
                        "the judge's ranking names '{name}', which is not a candidate; the candidates are {}",
                        listed()
                    ));
                }
                if ranking.contains(name) {
                    return Err(format!("the judge's ranking names '{name}' twice"));
                }
                ranking.push(name.clone());
            }
            ranking
        }
        Some(other) => {
            return Err(format!(
                "the judge's \"ranking\" is {other}, not a list of candidates' names"
            ));
        }
    };
    if let Some(first) = ranking.first()
        && *first != winner
    {
        return Err(format!(
            "the judge's ranking puts '{first}' first, but its winner is '{winner}'"
        ));
    }
    let reasons = match object.get("reasons") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        // A model may give its reasons as a list or an object: kept as the JSON it wrote.
        Some(other) => other.to_string(),
    };
    Ok(Verdict {
        winner,
        ranking,
        reasons,
    })
}

/// Keep `verdict` as `verdict.json` in `run_dir` (made if missing), written whole or not at
/// all; its path.
pub fn keep(run_dir: &Path, verdict: &Verdict) -> Result<PathBuf> {
    std::fs::create_dir_all(run_dir)
        .with_context(|| format!("cannot make the folder {}", run_dir.display()))?;
    let path = run_dir.join(names::JUDGE_VERDICT_FILE);
    let mut text = serde_json::to_string_pretty(verdict).expect("a verdict always serializes");
    text.push('\n');
    statefile::write_atomic(&path, text.as_bytes(), None)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANDIDATES: &[&str] = &["claude", "codex", "gemini"];

    fn ok(text: &str) -> Verdict {
        parse(text, CANDIDATES).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    fn err(text: &str) -> String {
        parse(text, CANDIDATES).expect_err(text)
    }

    #[test]
    fn a_bare_verdict_reads() {
        let v = ok(r#"{"winner": "codex", "ranking": ["codex", "claude"], "reasons": "tests"}"#);
        assert_eq!(
            v,
            Verdict {
                winner: "codex".into(),
                ranking: vec!["codex".into(), "claude".into()],
                reasons: "tests".into(),
            }
        );
    }

    #[test]
    fn a_verdict_inside_prose_reads() {
        let v = ok(
            "Having read both diffs, {codex} is tidier.\n\nMy verdict: {\"winner\": \"codex\", \
             \"ranking\": [\"codex\"], \"reasons\": \"smaller {diff}\"} -- thanks!",
        );
        assert_eq!(v.winner, "codex");
        assert_eq!(v.reasons, "smaller {diff}");
    }

    #[test]
    fn a_verdict_in_a_json_fence_reads() {
        let v = ok(
            "Here it is:\n\n```json\n{\n  \"winner\": \"gemini\",\n  \"ranking\": [\"gemini\", \"claude\", \"codex\"],\n  \"reasons\": \"only one with tests\"\n}\n```\n",
        );
        assert_eq!(v.winner, "gemini");
        assert_eq!(v.ranking.len(), 3);
    }

    #[test]
    fn of_several_objects_the_last_with_a_winner_counts() {
        let v = ok(concat!(
            r#"First thought: {"winner": "claude", "reasons": "draft"}. "#,
            r#"Some data {"lines": 3}. "#,
            r#"Final: {"winner": "codex", "reasons": "final", "details": {"winner": "gemini"}}"#,
            r#" and a trailing {"note": 1}"#,
        ));
        assert_eq!(v.winner, "codex");
        assert_eq!(v.reasons, "final");
    }

    #[test]
    fn a_runtimes_json_output_is_searched_in_its_result_text() {
        let v = ok(
            r#"{"type":"result","result":"I pick:\n```json\n{\"winner\": \"claude\", \"reasons\": \"r\"}\n```"}"#,
        );
        assert_eq!(v.winner, "claude");
    }

    #[test]
    fn a_winner_that_is_not_a_candidate_is_refused_naming_the_candidates() {
        let e = err(r#"{"winner": "gpt", "reasons": "x"}"#);
        assert_eq!(
            e,
            "the judge's winner 'gpt' is not a candidate; the candidates are 'claude', 'codex', 'gemini'"
        );
        let e = err(r#"{"winner": 2}"#);
        assert!(
            e.starts_with("the judge's \"winner\" is 2, not a candidate's name"),
            "{e}"
        );
    }

    #[test]
    fn bad_json_or_none_at_all_is_refused_saying_which() {
        let e = err(r#"The winner is {"winner": "codex", "ranking": [codex]}"#);
        assert!(
            e.starts_with("the judge's verdict is not valid JSON ("),
            "{e}"
        );
        let e = err("I could not decide.");
        assert!(
            e.starts_with("the judge printed no JSON object with a \"winner\" key"),
            "{e}"
        );
        let e = err(r#"{"choice": "codex"}"#);
        assert!(e.starts_with("the judge printed no JSON object"), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }

    #[test]
    fn a_ranking_names_only_candidates_each_once_the_winner_first() {
        let e = err(r#"{"winner": "codex", "ranking": ["codex", "gpt"]}"#);
        assert!(
            e.starts_with("the judge's ranking names 'gpt', which is not a candidate"),
            "{e}"
        );
        let e = err(r#"{"winner": "codex", "ranking": ["codex", "codex"]}"#);
        assert_eq!(e, "the judge's ranking names 'codex' twice");
        let e = err(r#"{"winner": "codex", "ranking": ["claude", "codex"]}"#);
        assert_eq!(
            e,
            "the judge's ranking puts 'claude' first, but its winner is 'codex'"
        );
        let e = err(r#"{"winner": "codex", "ranking": "codex"}"#);
        assert!(e.contains("not a list of candidates' names"), "{e}");
        let e = err(r#"{"winner": "codex", "ranking": ["codex", 3]}"#);
        assert!(e.contains("holds 3"), "{e}");
    }

    #[test]
    fn missing_ranking_and_reasons_read_as_empty_and_structured_reasons_as_json() {
        let v = ok(r#"{"winner": "claude"}"#);
        assert!(v.ranking.is_empty() && v.reasons.is_empty());
        let v = ok(r#"{"winner": "claude", "reasons": ["tests", "size"]}"#);
        assert_eq!(v.reasons, r#"["tests","size"]"#);
    }

    #[test]
    fn a_kept_verdict_reads_back_and_leaves_no_temp_file() {
        let dir = std::env::temp_dir().join(format!("berth-judge-verdict-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let v = ok(r#"{"winner": "codex", "ranking": ["codex", "claude"], "reasons": "r"}"#);
        let path = keep(&dir, &v).unwrap();
        assert_eq!(path, dir.join("verdict.json"));
        let back: Verdict = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(back, v);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
