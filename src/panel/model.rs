//! What the panel shows and where the person is in it: the rows of one reading (grouped under
//! their fleet or pipeline run), the filter, the selection, and what is open over the rows (the
//! filter being typed, a question, a confirmation, the scrollable pane, the keys). Pure: it never
//! reads the repository nor draws; an action in, an [`Effect`] out for the event loop to carry out.

use std::collections::HashSet;
use std::path::PathBuf;

use super::keys::{Action, Command, Input};
use crate::inventory::Kind;
use crate::orchestrator::agents;
use crate::registry::Backend;
use crate::worktree::listing::Row;

/// Everything one refresh read: `list --json --all`'s rows, the agents, and which fleet or
/// pipeline run each worktree belongs to.
#[derive(Debug, Default)]
pub struct Reading {
    pub rows: Vec<Row>,
    /// The worktrees the caller's session holds.
    pub mine: HashSet<String>,
    pub agents: Vec<agents::Row>,
    /// Worktree name and the group it is shown under (`fleet review`, `pipeline fix-3`).
    pub groups: Vec<(String, String)>,
    /// What the reading said on the way (a broken owners file): shown, never fatal.
    pub warnings: Vec<String>,
}

/// The agent working in a worktree, as its row shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCell {
    pub name: String,
    pub layer: u8,
    pub runtime: String,
    pub alive: bool,
    pub backend: Backend,
    pub pane: Option<String>,
    pub socket: Option<PathBuf>,
}

/// One worktree's row.
#[derive(Debug)]
pub struct Line {
    pub row: Row,
    /// The caller's own session holds it.
    pub yours: bool,
    pub agent: Option<AgentCell>,
    pub group: Option<String>,
}

/// What the table shows, top to bottom.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// A fleet's or pipeline run's heading; its text is the line's `group` at the index.
    Group(usize),
    /// The worktree at this index of [`Model::lines`].
    Worktree(usize),
}

/// A command waiting for its answer or its confirmation, on the worktree named.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub command: Command,
    pub worktree: String,
}

/// A long text to read: a diff, an overview, a gate's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pane {
    pub title: String,
    pub lines: Vec<String>,
    /// Colour it as a unified diff.
    pub diff: bool,
    /// The first line shown.
    pub scroll: usize,
}

/// What is open over the rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    Browse,
    Filter,
    /// A question whose answer is typed (a note, a name).
    Ask {
        question: String,
        answer: String,
        then: Pending,
    },
    /// A one-key yes or no.
    Confirm {
        question: String,
        then: Pending,
    },
    Pane(Pane),
    Help,
}

/// The status line's message: what an action said, or why it was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub text: String,
    pub error: bool,
}

/// Where ↵ goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub path: PathBuf,
    /// Its live agent, whose tab can be focused instead.
    pub agent: Option<AgentCell>,
}

/// What the event loop does after an action.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    None,
    Refresh,
    Switch(Target),
    Quit,
    /// Start `command` on the worktree named.
    Run(Pending),
    /// The answer typed to a question.
    Answer(Pending, String),
    /// A confirmation given.
    Confirmed(Pending),
}

#[derive(Debug)]
pub struct Model {
    pub lines: Vec<Line>,
    pub filter: String,
    /// The selected worktree, by name, so that it stays selected when rows come and go.
    selected: Option<String>,
    pub mode: Mode,
    pub message: Option<Message>,
    pub warnings: Vec<String>,
    /// Rows a page key moves (the table's height, as last drawn).
    pub page: usize,
}

impl Default for Model {
    fn default() -> Self {
        Model {
            lines: Vec::new(),
            filter: String::new(),
            selected: None,
            mode: Mode::Browse,
            message: None,
            warnings: Vec::new(),
            page: 10,
        }
    }
}

/// The rows of `reading`: each with its agent (a live one first, the newest among equals) and
/// its group, the ungrouped first in `list`'s order, then each group in the order of its first row.
pub fn lines(reading: Reading) -> Vec<Line> {
    let Reading {
        rows,
        mine,
        agents,
        groups,
        ..
    } = reading;
    let mut lines: Vec<Line> = rows
        .into_iter()
        .map(|row| {
            // `agents::list` is oldest first: the last live one is the newest.
            let here = || agents.iter().filter(|a| a.worktree == row.path);
            let agent = here()
                .rfind(|a| a.status == "alive")
                .or_else(|| here().next_back())
                .map(|a| AgentCell {
                    name: a.name.clone(),
                    layer: a.layer,
                    runtime: a.runtime.clone(),
                    alive: a.status == "alive",
                    backend: a.backend,
                    pane: a.pane.clone(),
                    socket: a.socket.clone(),
                });
            let group = groups
                .iter()
                .find(|(name, _)| *name == row.name)
                .map(|(_, group)| group.clone());
            Line {
                yours: mine.contains(&row.name),
                row,
                agent,
                group,
            }
        })
        .collect();
    let mut order: Vec<Option<String>> = vec![None];
    for line in &lines {
        if !order.contains(&line.group) {
            order.push(line.group.clone());
        }
    }
    // A stable sort keeps `list`'s order within each group.
    lines.sort_by_key(|line| order.iter().position(|g| *g == line.group));
    lines
}

/// Whether `line` matches the filter `text` (case-insensitively, anywhere in its name, branch,
/// claim holder, agent, group or kind).
pub fn matches(line: &Line, text: &str) -> bool {
    if text.is_empty() {
        return true;
    }
    let text = text.to_lowercase();
    let row = &line.row;
    [
        Some(row.name.as_str()),
        row.branch.as_deref(),
        row.claimed_by.as_deref(),
        line.agent.as_ref().map(|a| a.name.as_str()),
        line.group.as_deref(),
        (row.kind != Kind::Managed).then(|| row.kind.as_str()),
    ]
    .into_iter()
    .flatten()
    .any(|field| field.to_lowercase().contains(&text))
}

impl Model {
    /// Put in a new reading, keeping the selection on the same worktree where it is still there.
    pub fn load(&mut self, mut reading: Reading) {
        self.warnings = std::mem::take(&mut reading.warnings);
        self.lines = lines(reading);
        self.keep_selection();
    }

    /// What the keyboard is doing.
    pub fn input(&self) -> Input {
        match self.mode {
            Mode::Browse => Input::Browse,
            Mode::Filter => Input::Filter,
            Mode::Ask { .. } => Input::Text,
            Mode::Confirm { .. } => Input::Confirm,
            Mode::Pane(_) => Input::Pane,
            Mode::Help => Input::Help,
        }
    }

    /// The table's items: each group's heading before its first row, only rows the filter keeps.
    pub fn items(&self) -> Vec<Item> {
        let mut items = Vec::new();
        let mut heading: Option<&str> = None;
        for (i, line) in self.lines.iter().enumerate() {
            if !matches(line, &self.filter) {
                continue;
            }
            if let Some(group) = line.group.as_deref()
                && heading != Some(group)
            {
                items.push(Item::Group(i));
                heading = Some(group);
            }
            items.push(Item::Worktree(i));
        }
        items
    }

    /// The indexes of the rows shown, in order.
    fn shown(&self) -> Vec<usize> {
        self.items()
            .into_iter()
            .filter_map(|item| match item {
                Item::Worktree(i) => Some(i),
                Item::Group(_) => None,
            })
            .collect()
    }

    /// The selected row: the one named if the filter shows it, else the first shown.
    pub fn selected(&self) -> Option<usize> {
        let shown = self.shown();
        self.selected
            .as_deref()
            .and_then(|name| {
                shown
                    .iter()
                    .copied()
                    .find(|&i| self.lines[i].row.name == name)
            })
            .or_else(|| shown.first().copied())
    }

    pub fn selected_line(&self) -> Option<&Line> {
        self.selected().map(|i| &self.lines[i])
    }

    /// Select the row shown `by` places from the selected one, stopping at either end.
    fn step(&mut self, by: isize) {
        let shown = self.shown();
        let Some(last) = shown.len().checked_sub(1) else {
            return;
        };
        let at = self
            .selected()
            .and_then(|i| shown.iter().position(|&s| s == i))
            .unwrap_or(0);
        let to = at.saturating_add_signed(by).min(last);
        self.selected = Some(self.lines[shown[to]].row.name.clone());
    }

    /// After the rows changed: the named row if it is still there, else the first.
    fn keep_selection(&mut self) {
        let name = self.selected().map(|i| self.lines[i].row.name.clone());
        self.selected = name;
    }

    fn page_by(&self) -> isize {
        isize::try_from(self.page.max(1)).unwrap_or(1)
    }

    /// Carry out `action`; what is left for the event loop is the returned [`Effect`].
    pub fn apply(&mut self, action: Action) -> Effect {
        if !matches!(action, Action::Type(_) | Action::Erase) {
            self.message = None;
        }
        match std::mem::replace(&mut self.mode, Mode::Browse) {
            Mode::Browse => self.browse(action),
            Mode::Filter => self.filtering(action),
            Mode::Ask {
                question,
                mut answer,
                then,
            } => match action {
                Action::Type(c) => {
                    answer.push(c);
                    self.mode = Mode::Ask {
                        question,
                        answer,
                        then,
                    };
                    Effect::None
                }
                Action::Erase => {
                    answer.pop();
                    self.mode = Mode::Ask {
                        question,
                        answer,
                        then,
                    };
                    Effect::None
                }
                Action::Submit => Effect::Answer(then, answer),
                Action::Quit => Effect::Quit,
                _ => Effect::None,
            },
            Mode::Confirm { then, .. } => match action {
                Action::Yes => Effect::Confirmed(then),
                Action::Quit => Effect::Quit,
                _ => Effect::None,
            },
            Mode::Pane(mut pane) => {
                let page = self.page.max(1);
                // The last page shows whole: the pane never scrolls past its text.
                let last = pane.lines.len().saturating_sub(page);
                pane.scroll = match action {
                    Action::Back => return Effect::None,
                    Action::Quit => return Effect::Quit,
                    Action::Up => pane.scroll.saturating_sub(1),
                    Action::Down => pane.scroll + 1,
                    Action::PageUp => pane.scroll.saturating_sub(page),
                    Action::PageDown => pane.scroll + page,
                    Action::Top => 0,
                    Action::Bottom => last,
                    _ => pane.scroll,
                }
                .min(last);
                self.mode = Mode::Pane(pane);
                Effect::None
            }
            Mode::Help => match action {
                Action::Quit => Effect::Quit,
                _ => Effect::None,
            },
        }
    }

    fn browse(&mut self, action: Action) -> Effect {
        match action {
            Action::Up => self.step(-1),
            Action::Down => self.step(1),
            Action::PageUp => self.step(-self.page_by()),
            Action::PageDown => self.step(self.page_by()),
            Action::Top => self.step(isize::MIN),
            Action::Bottom => self.step(isize::MAX),
            Action::Refresh => return Effect::Refresh,
            Action::Filter => self.mode = Mode::Filter,
            Action::Help => self.mode = Mode::Help,
            Action::Quit => return Effect::Quit,
            Action::Switch => {
                if let Some(line) = self.selected_line() {
                    return Effect::Switch(Target {
                        path: line.row.path.clone(),
                        agent: line.agent.clone().filter(|a| a.alive),
                    });
                }
            }
            Action::Run(command) => match self.selected_line() {
                Some(line) => {
                    return Effect::Run(Pending {
                        command,
                        worktree: line.row.name.clone(),
                    });
                }
                // Adding a worktree and the overview need no row.
                None if matches!(command, Command::Add | Command::Collect) => {
                    return Effect::Run(Pending {
                        command,
                        worktree: String::new(),
                    });
                }
                None => self.say("no worktree selected", true),
            },
            _ => {}
        }
        Effect::None
    }

    fn filtering(&mut self, action: Action) -> Effect {
        self.mode = Mode::Filter;
        match action {
            Action::Type(c) => self.filter.push(c),
            Action::Erase => {
                self.filter.pop();
            }
            Action::Up => self.step(-1),
            Action::Down => self.step(1),
            Action::Submit => self.mode = Mode::Browse,
            Action::Back => {
                self.filter.clear();
                self.mode = Mode::Browse;
            }
            Action::Quit => return Effect::Quit,
            _ => {}
        }
        Effect::None
    }

    /// Say `text` on the status line.
    pub fn say(&mut self, text: impl Into<String>, error: bool) {
        self.message = Some(Message {
            text: text.into(),
            error,
        });
    }

    /// Select the worktree named, now or once it is read.
    pub fn select(&mut self, name: &str) {
        self.selected = Some(name.to_owned());
    }

    /// Ask a question whose answer is typed; `then` gets it.
    pub fn ask(&mut self, question: impl Into<String>, then: Pending) {
        self.mode = Mode::Ask {
            question: question.into(),
            answer: String::new(),
            then,
        };
    }

    /// Ask for a one-key yes or no; `then` runs on yes.
    pub fn confirm(&mut self, question: impl Into<String>, then: Pending) {
        self.mode = Mode::Confirm {
            question: question.into(),
            then,
        };
    }

    /// Open `text` in the scrollable pane.
    pub fn show(&mut self, title: impl Into<String>, text: &str, diff: bool) {
        self.mode = Mode::Pane(Pane {
            title: title.into(),
            lines: text.lines().map(str::to_owned).collect(),
            diff,
            scroll: 0,
        });
    }

    /// How many worktrees, and how many the caller holds: the heading's counts.
    pub fn counts(&self) -> (usize, usize) {
        (
            self.lines.len(),
            self.lines.iter().filter(|l| l.yours).count(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::worktree::listing::State;

    fn row(name: &str) -> Row {
        Row {
            name: name.to_owned(),
            kind: Kind::Managed,
            state: State::Ok,
            status: None,
            claimed_by: None,
            stale_reason: None,
            path: PathBuf::from(format!("/w/{name}")),
            branch: Some(format!("berth/{name}")),
            head: None,
            base: None,
            base_ref: None,
            ahead: None,
            behind: None,
            dirty: None,
            locked: false,
            current: false,
            created: None,
            setup: None,
            review: None,
            ports: None,
            last_commit: None,
            merged: None,
            owns: Vec::new(),
        }
    }

    fn agent(name: &str, worktree: &str, alive: bool, started: u64) -> agents::Row {
        agents::Row {
            name: name.to_owned(),
            layer: 1,
            runtime: "claude".to_owned(),
            worktree: PathBuf::from(format!("/w/{worktree}")),
            branch: String::new(),
            backend: Backend::Tmux,
            pane: Some(format!("%{started}")),
            socket: None,
            pid: None,
            status: if alive { "alive" } else { "gone" },
            session: String::new(),
            parent: None,
            started,
            command: Vec::new(),
        }
    }

    fn model(names: &[&str], groups: &[(&str, &str)]) -> Model {
        let mut model = Model::default();
        model.load(Reading {
            rows: names.iter().map(|n| row(n)).collect(),
            groups: groups
                .iter()
                .map(|(n, g)| ((*n).to_owned(), (*g).to_owned()))
                .collect(),
            ..Reading::default()
        });
        model
    }

    fn names(model: &Model) -> Vec<String> {
        model
            .items()
            .into_iter()
            .map(|item| match item {
                Item::Group(i) => format!("[{}]", model.lines[i].group.as_deref().unwrap()),
                Item::Worktree(i) => model.lines[i].row.name.clone(),
            })
            .collect()
    }

    fn selected(model: &Model) -> &str {
        &model.selected_line().unwrap().row.name
    }

    #[test]
    fn rows_of_a_fleet_or_run_are_grouped_under_it_after_the_ungrouped_ones() {
        let model = model(
            &["app", "rev/a", "fix-1/x", "solo", "rev/b"],
            &[
                ("rev/a", "fleet rev"),
                ("rev/b", "fleet rev"),
                ("fix-1/x", "pipeline fix-1"),
            ],
        );
        assert_eq!(
            names(&model),
            [
                "app",
                "solo",
                "[fleet rev]",
                "rev/a",
                "rev/b",
                "[pipeline fix-1]",
                "fix-1/x"
            ]
        );
    }

    #[test]
    fn the_filter_keeps_matching_rows_and_only_the_headings_they_need() {
        let mut model = model(&["app", "rev/a", "auth"], &[("rev/a", "fleet rev")]);
        for c in "AU".chars() {
            model.filter.push(c);
        }
        assert_eq!(names(&model), ["auth"]);
        model.filter = "rev".to_owned();
        assert_eq!(names(&model), ["[fleet rev]", "rev/a"]);
        model.filter = "nothing".to_owned();
        assert!(names(&model).is_empty());
        assert_eq!(model.selected(), None);
        assert_eq!(model.apply(Action::Switch), Effect::None);
    }

    #[test]
    fn the_selection_stops_at_both_ends_and_skips_headings() {
        let mut model = model(&["a", "b", "c"], &[("c", "fleet f")]);
        assert_eq!(selected(&model), "a");
        model.apply(Action::Up);
        assert_eq!(selected(&model), "a");
        for _ in 0..5 {
            model.apply(Action::Down);
        }
        assert_eq!(selected(&model), "c");
        model.apply(Action::Top);
        assert_eq!(selected(&model), "a");
        model.apply(Action::Bottom);
        assert_eq!(selected(&model), "c");
    }

    #[test]
    fn the_selection_follows_its_worktree_across_a_refresh() {
        let mut model = model(&["a", "b", "c"], &[]);
        model.apply(Action::Down);
        assert_eq!(selected(&model), "b");
        model.load(Reading {
            rows: vec![row("new"), row("a"), row("b")],
            ..Reading::default()
        });
        assert_eq!(selected(&model), "b");
        model.load(Reading {
            rows: vec![row("a")],
            ..Reading::default()
        });
        assert_eq!(selected(&model), "a");
    }

    #[test]
    fn typing_a_filter_then_esc_clears_it_and_enter_keeps_it() {
        let mut model = model(&["auth", "billing"], &[]);
        model.apply(Action::Filter);
        assert_eq!(model.input(), Input::Filter);
        model.apply(Action::Type('l'));
        assert_eq!(names(&model), ["billing"]);
        assert_eq!(selected(&model), "billing");
        model.apply(Action::Back);
        assert_eq!((model.filter.as_str(), model.input()), ("", Input::Browse));
        model.apply(Action::Filter);
        model.apply(Action::Type('x'));
        model.apply(Action::Erase);
        model.apply(Action::Type('a'));
        model.apply(Action::Submit);
        assert_eq!((model.filter.as_str(), model.input()), ("a", Input::Browse));
    }

    #[test]
    fn enter_goes_to_the_worktree_with_its_live_agent_only() {
        let mut model = Model::default();
        model.load(Reading {
            rows: vec![row("a"), row("b")],
            agents: vec![
                agent("old", "a", false, 1),
                agent("now", "a", true, 2),
                agent("gone", "b", false, 3),
            ],
            ..Reading::default()
        });
        assert_eq!(model.lines[0].agent.as_ref().unwrap().name, "now");
        assert_eq!(model.lines[1].agent.as_ref().unwrap().name, "gone");
        let Effect::Switch(target) = model.apply(Action::Switch) else {
            panic!("no switch");
        };
        assert_eq!(target.path, PathBuf::from("/w/a"));
        assert_eq!(target.agent.unwrap().name, "now");
        model.apply(Action::Down);
        assert_eq!(
            model.apply(Action::Switch),
            Effect::Switch(Target {
                path: PathBuf::from("/w/b"),
                agent: None
            })
        );
    }

    #[test]
    fn a_question_collects_its_answer_and_a_confirmation_needs_yes() {
        let mut model = model(&["a"], &[]);
        let Effect::Run(pending) = model.apply(Action::Run(Command::Diff)) else {
            panic!("no run");
        };
        assert_eq!(pending.worktree, "a");
        model.ask("note", pending.clone());
        model.apply(Action::Type('o'));
        model.apply(Action::Type('k'));
        assert_eq!(
            model.apply(Action::Submit),
            Effect::Answer(pending.clone(), "ok".to_owned())
        );
        model.confirm("ship a?", pending.clone());
        assert_eq!(model.apply(Action::No), Effect::None);
        assert_eq!(model.input(), Input::Browse);
        model.confirm("ship a?", pending.clone());
        assert_eq!(model.apply(Action::Yes), Effect::Confirmed(pending));
    }

    #[test]
    fn the_pane_scrolls_within_its_text_and_closes_on_back() {
        let mut model = model(&["a"], &[]);
        model.page = 3;
        model.show("diff", "1\n2\n3\n4\n5", true);
        model.apply(Action::PageDown);
        model.apply(Action::PageDown);
        let Mode::Pane(pane) = &model.mode else {
            panic!("closed");
        };
        assert_eq!(pane.scroll, 2);
        model.apply(Action::Up);
        model.apply(Action::Top);
        model.apply(Action::Up);
        let Mode::Pane(pane) = &model.mode else {
            panic!("closed");
        };
        assert_eq!(pane.scroll, 0);
        model.apply(Action::Back);
        assert_eq!(model.input(), Input::Browse);
    }
}
