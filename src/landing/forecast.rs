//! The pairwise forecast, the one `collect` shows and `ship` lands in the order of: each two
//! worktrees whose changes meet in a file, merged with each other in memory, conflict there or
//! merely overlap. Work that has landed is on the trunk and pairs with nobody. Writes nothing.

use serde::Serialize;

use crate::git::{graph, status};
use crate::ownership::FileOwner;
use crate::ui::Ui;

/// One worktree as the forecast weighs it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub name: String,
    /// The commit whose work it holds; `None` when there is none to merge.
    pub head: Option<gix::ObjectId>,
    /// What merging `head` into the trunk would bring, sorted ([`Standing::files`]).
    pub files: Vec<String>,
}

/// Where a worktree's head stands against the trunk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Standing {
    /// It merges into the trunk without conflicts (tried in memory).
    pub merges_cleanly: Option<bool>,
    /// Every change of its own commits is on the trunk already (merged, squash-merged or
    /// rebased). `None` when it has no commits of its own.
    pub merged: Option<bool>,
    /// Files it changes relative to its merge base with the trunk, sorted; none once merged:
    /// what has landed is nobody's overlap any more.
    pub files: Vec<String>,
}

/// Where `head`, a worktree's with `own` commits of its own from `base`, stands against the
/// commit `trunk`. One merge in memory answers both: does it merge, and would it change anything.
pub fn standing(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    head: gix::ObjectId,
    base: &graph::Base,
    own: usize,
) -> Standing {
    let into = graph::into_trunk(repo, trunk, head).ok();
    let mut standing = Standing {
        merges_cleanly: into.map(|m| m.clean),
        merged: None,
        files: graph::changed_files(repo, trunk, head).unwrap_or_default(),
    };
    if own > 0 {
        // As `list --full` judges it (graph::work_not_landed): its own commits, from where it
        // started, are on the trunk, or merging them would change nothing.
        let elsewhere: Vec<_> = std::iter::once(trunk).chain(base.commit).collect();
        standing.merged = graph::unmerged_count(repo, head, &elsewhere)
            .ok()
            .map(|left| left == 0 || into.is_some_and(|m| m.changes_nothing));
    }
    if standing.merged == Some(true) {
        standing.files.clear();
    }
    standing
}

/// What merging worktrees' branches with each other, two at a time, would do to the files both
/// change.
#[derive(Debug, Default, PartialEq, Eq, Serialize)]
pub struct Forecast {
    /// Files on which the pair's merge conflicts, with the lines of their merge base that both
    /// change (none when the conflict is not in the text: a deletion, a rename, a binary file).
    pub conflicts: Vec<PairConflict>,
    /// Files both change that merge cleanly.
    pub overlaps: Vec<Pair>,
}

impl Forecast {
    /// How much worktree `name` meets the others: 0 not at all, 1 in files that merge cleanly,
    /// 2 in a conflict. What `ship --all-approved` orders by.
    pub fn weight(&self, name: &str) -> u8 {
        let named = |pair: &[String; 2]| pair.iter().any(|n| n == name);
        if self.conflicts.iter().any(|c| named(&c.worktrees)) {
            2
        } else {
            u8::from(self.overlaps.iter().any(|o| named(&o.worktrees)))
        }
    }
}

/// Two worktrees and a file both change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pair {
    pub worktrees: [String; 2],
    pub file: String,
}

#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct PairConflict {
    pub worktrees: [String; 2],
    pub file: String,
    pub lines: Vec<Lines>,
    /// The live worktree that owns the file (`git berth own`), when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owner: Option<FileOwner>,
}

/// Lines `start` to `end` (1-based, both included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Lines {
    pub start: u32,
    pub end: u32,
}

/// The forecast over `candidates`: each pair that shares a file is merged in memory, the pairs
/// on several threads. A pair that cannot be merged is warned about (on `ui`) and left out.
pub fn forecast(repo: &gix::Repository, candidates: &[Candidate], ui: &Ui) -> Forecast {
    let pairs = sharing_pairs(candidates);
    // A repository per merge: gix's is not shared between threads, its thread-safe form is.
    let shared = repo.clone().into_sync();
    let merges = status::parallel_map(&pairs, |pair| {
        let (Some(a), Some(b)) = (candidates[pair.a].head, candidates[pair.b].head) else {
            return None;
        };
        graph::conflicts_between(&shared.to_thread_local(), a, b)
            .map_err(|err| {
                ui.warn(format_args!(
                    "cannot forecast {} with {}: {err:#}",
                    candidates[pair.a].name, candidates[pair.b].name
                ));
            })
            .ok()
    });
    assemble(candidates, &pairs, merges)
}

/// Two candidates (by their place in the list) and the files both change.
#[derive(Debug, PartialEq, Eq)]
pub struct Shared {
    pub a: usize,
    pub b: usize,
    pub files: Vec<String>,
}

/// Every pair of candidates whose changes meet in a file: the pairs worth a merge. Pure.
pub fn sharing_pairs(candidates: &[Candidate]) -> Vec<Shared> {
    let mut pairs = Vec::new();
    for (a, first) in candidates.iter().enumerate() {
        for (b, second) in candidates.iter().enumerate().skip(a + 1) {
            // Both lists are sorted: walk them side by side.
            let (mut i, mut j, mut files) = (0, 0, Vec::new());
            while i < first.files.len() && j < second.files.len() {
                match first.files[i].cmp(&second.files[j]) {
                    std::cmp::Ordering::Less => i += 1,
                    std::cmp::Ordering::Greater => j += 1,
                    std::cmp::Ordering::Equal => {
                        files.push(first.files[i].clone());
                        i += 1;
                        j += 1;
                    }
                }
            }
            if !files.is_empty() {
                pairs.push(Shared { a, b, files });
            }
        }
    }
    pairs
}

/// The forecast from each pair's merge (`None` where it could not be tried): the files the merge
/// stops on are conflicts, the other files both change are overlaps. Pure.
pub fn assemble(
    candidates: &[Candidate],
    pairs: &[Shared],
    merges: Vec<Option<Vec<graph::FileConflict>>>,
) -> Forecast {
    let mut out = Forecast::default();
    for (pair, merged) in pairs.iter().zip(merges) {
        let Some(conflicts) = merged else { continue };
        let names = || {
            [
                candidates[pair.a].name.clone(),
                candidates[pair.b].name.clone(),
            ]
        };
        for file in &pair.files {
            if !conflicts.iter().any(|c| &c.path == file) {
                out.overlaps.push(Pair {
                    worktrees: names(),
                    file: file.clone(),
                });
            }
        }
        for conflict in conflicts {
            out.conflicts.push(PairConflict {
                worktrees: names(),
                file: conflict.path,
                lines: conflict
                    .lines
                    .into_iter()
                    .map(|(start, end)| Lines { start, end })
                    .collect(),
                owner: None,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(name: &str, files: &[&str]) -> Candidate {
        Candidate {
            name: name.into(),
            head: None,
            files: files.iter().map(|f| f.to_string()).collect(),
        }
    }

    fn pair(a: &str, b: &str) -> [String; 2] {
        [a.to_owned(), b.to_owned()]
    }

    #[test]
    fn no_shared_file_means_no_pair() {
        let candidates = [candidate("a", &["x"]), candidate("b", &["y"])];
        assert!(sharing_pairs(&candidates).is_empty());
    }

    #[test]
    fn a_pair_is_two_candidates_whose_files_meet_with_the_files_they_share() {
        let candidates = [
            candidate("a", &["README.md", "src/lib.rs", "z"]),
            candidate("b", &["src/lib.rs", "z"]),
            candidate("c", &["docs/x.md"]),
            candidate("d", &["README.md"]),
        ];
        let pairs = sharing_pairs(&candidates);
        let named: Vec<(&str, &str, Vec<&str>)> = pairs
            .iter()
            .map(|p| {
                let files = p.files.iter().map(String::as_str).collect();
                let name = |i: usize| candidates[i].name.as_str();
                (name(p.a), name(p.b), files)
            })
            .collect();
        assert_eq!(
            named,
            [
                ("a", "b", vec!["src/lib.rs", "z"]),
                ("a", "d", vec!["README.md"]),
            ]
        );
    }

    #[test]
    fn the_files_a_merge_stops_on_are_conflicts_and_the_other_shared_files_overlaps() {
        let candidates = [candidate("a", &["x", "y"]), candidate("b", &["x", "y"])];
        let pairs = sharing_pairs(&candidates);
        let merged = vec![Some(vec![graph::FileConflict {
            path: "y".into(),
            lines: vec![(3, 4)],
        }])];
        assert_eq!(
            assemble(&candidates, &pairs, merged),
            Forecast {
                conflicts: vec![PairConflict {
                    worktrees: pair("a", "b"),
                    file: "y".into(),
                    lines: vec![Lines { start: 3, end: 4 }],
                    owner: None,
                }],
                overlaps: vec![Pair {
                    worktrees: pair("a", "b"),
                    file: "x".into(),
                }],
            }
        );
    }

    #[test]
    fn a_pair_that_could_not_be_merged_is_left_out_rather_than_called_clean() {
        let candidates = [candidate("a", &["x"]), candidate("b", &["x"])];
        let pairs = sharing_pairs(&candidates);
        assert_eq!(
            assemble(&candidates, &pairs, vec![None]),
            Forecast::default()
        );
    }

    #[test]
    fn a_worktree_weighs_by_the_worst_pair_it_is_in() {
        let forecast = Forecast {
            conflicts: vec![PairConflict {
                worktrees: pair("a", "b"),
                file: "x".into(),
                lines: Vec::new(),
                owner: None,
            }],
            overlaps: vec![Pair {
                worktrees: pair("b", "c"),
                file: "y".into(),
            }],
        };
        let weights: Vec<u8> = ["a", "b", "c", "d"]
            .iter()
            .map(|n| forecast.weight(n))
            .collect();
        assert_eq!(weights, [2, 2, 1, 0]);
    }
}
