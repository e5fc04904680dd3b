//! Drawing the model: a heading, one table row per worktree (grouped under its fleet or pipeline
//! run), the selected row's path and owned paths, and the status line; over them the scrollable
//! pane or the keys. It reads the model only, and colours as `list` does, only where colour is
//! wanted (`NO_COLOR`, git's `color.ui`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line as Text, Span};
use ratatui::widgets::{Block, Cell, Clear, Paragraph, Row as TableRow, Table, TableState};
use unicode_width::UnicodeWidthStr as _;

use super::keys;
use super::model::{Item, Line, Mode, Model};
use crate::inventory::Kind;
use crate::landing::review;
use crate::render::Paint;
use crate::worktree::listing::{State, Status};

/// The table's columns: heading, and the most cells it is given before cutting.
const COLUMNS: [(&str, u16); 10] = [
    ("NAME", 32),
    ("CLAIM", 22),
    ("REVIEW", 10),
    ("AGENT", 28),
    ("BRANCH", 28),
    ("BASE", 20),
    ("DRIFT", 9),
    ("STATE", 18),
    ("PORTS", 11),
    ("LAST COMMIT", 0),
];

/// Colours, or none where colour is not wanted.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub colour: bool,
}

impl Look {
    fn paint(self, paint: Option<Paint>) -> Style {
        let Some(paint) = paint.filter(|_| self.colour) else {
            return Style::default();
        };
        match paint {
            Paint::Green => Style::default().fg(Color::Green),
            Paint::Yellow => Style::default().fg(Color::Yellow),
            Paint::Red => Style::default().fg(Color::Red),
            Paint::Dim => Style::default().add_modifier(Modifier::DIM),
            Paint::Bold => Style::default().add_modifier(Modifier::BOLD),
        }
    }
}

/// Draw `model` on the whole frame; the title names the repository.
pub fn draw(frame: &mut Frame, model: &Model, title: &str, look: Look) {
    let [head, body, details, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(2),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let (worktrees, yours) = model.counts();
    let mut heading = format!("git berth ui · {title} · {worktrees} worktrees · {yours} yours");
    if !model.filter.is_empty() {
        heading.push_str(&format!(" · filter: {}", model.filter));
    }
    frame.render_widget(
        Paragraph::new(heading).style(Style::default().add_modifier(Modifier::BOLD)),
        head,
    );
    table(frame, body, model, look);
    frame.render_widget(Paragraph::new(selected_details(model)), details);
    frame.render_widget(Paragraph::new(status_line(model, look)), status);
    match &model.mode {
        Mode::Pane(pane) => {
            let area = body.union(details);
            frame.render_widget(Clear, area);
            let lines: Vec<Text> = pane
                .lines
                .iter()
                .skip(pane.scroll)
                .take(usize::from(area.height.saturating_sub(2)))
                .map(|l| diff_line(l, pane.diff, look))
                .collect();
            frame.render_widget(
                Paragraph::new(lines).block(Block::bordered().title(format!(
                    " {} · line {}/{} ",
                    pane.title,
                    (pane.scroll + 1).min(pane.lines.len()),
                    pane.lines.len()
                ))),
                area,
            );
        }
        Mode::Help => help(frame, body.union(details)),
        _ => {}
    }
}

/// The lines a page key moves, given the frame's height: the pane's text between its borders
/// (the heading, the status line and two borders take the rest).
pub fn page(frame_height: u16) -> usize {
    usize::from(frame_height.saturating_sub(4))
}

fn table(frame: &mut Frame, area: Rect, model: &Model, look: Look) {
    let items = model.items();
    let selected = model.selected();
    let mut state = TableState::default();
    let mut rows = Vec::with_capacity(items.len());
    let mut cells_of = Vec::new();
    for (at, item) in items.iter().enumerate() {
        match *item {
            Item::Group(i) => {
                rows.push(
                    TableRow::new([Cell::from(model.lines[i].group.clone().unwrap_or_default())])
                        .style(look.paint(Some(Paint::Bold)).add_modifier(Modifier::BOLD)),
                );
                cells_of.push(None);
            }
            Item::Worktree(i) => {
                if selected == Some(i) {
                    state.select(Some(at));
                }
                let cells = cells(&model.lines[i]);
                rows.push(TableRow::new(cells.iter().map(|(text, paint)| {
                    Cell::from(text.clone()).style(look.paint(*paint))
                })));
                cells_of.push(Some(cells));
            }
        }
    }
    let widths: Vec<Constraint> = COLUMNS
        .iter()
        .enumerate()
        .map(|(c, (name, most))| {
            if *most == 0 {
                return Constraint::Fill(1);
            }
            let widest = cells_of
                .iter()
                .flatten()
                .map(|cells| cells[c].0.width())
                .max()
                .unwrap_or(0)
                .max(name.len());
            Constraint::Length(u16::try_from(widest).unwrap_or(*most).min(*most))
        })
        .collect();
    let header = TableRow::new(COLUMNS.iter().map(|(name, _)| Cell::from(*name)))
        .style(Style::default().add_modifier(Modifier::BOLD));
    let empty = items.is_empty();
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(1)
        .row_highlight_style(Style::default().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ");
    frame.render_stateful_widget(table, area, &mut state);
    if empty {
        let said = if model.filter.is_empty() {
            "no worktrees yet: make one with git berth add <name>".to_owned()
        } else {
            format!("no worktree matches '{}'", model.filter)
        };
        let [_, below] = Layout::vertical([Constraint::Length(1), Constraint::Min(1)]).areas(area);
        frame.render_widget(Paragraph::new(said), below);
    }
}

/// One worktree's cells, in [`COLUMNS`]' order, with their colours (the rules of `list`).
pub fn cells(line: &Line) -> Vec<(String, Option<Paint>)> {
    let r = &line.row;
    let mut name = r.name.clone();
    if r.kind != Kind::Managed {
        name.push_str(&format!(" [{}]", r.kind.as_str()));
    }
    if r.current {
        name.push_str(" (here)");
    }
    let claim = match (r.status, &r.claimed_by) {
        (Some(Status::Claimed), _) if line.yours => ("you".to_owned(), Some(Paint::Green)),
        (Some(Status::Claimed), Some(who)) => (who.clone(), Some(Paint::Yellow)),
        (Some(Status::Stale), who) => (
            format!("stale {}", who.as_deref().unwrap_or_default()),
            Some(Paint::Red),
        ),
        (Some(Status::Available), _) => ("free".to_owned(), Some(Paint::Green)),
        _ => ("-".to_owned(), Some(Paint::Dim)),
    };
    let review = match r.review {
        Some(state) if state != review::State::Unreviewed => {
            (state.as_str().to_owned(), Some(state.paint()))
        }
        Some(state) => (state.as_str().to_owned(), Some(Paint::Dim)),
        None => ("-".to_owned(), Some(Paint::Dim)),
    };
    let agent = match &line.agent {
        Some(a) => (
            format!(
                "{} L{} {} {}",
                a.name,
                a.layer,
                a.runtime,
                if a.alive { "alive" } else { "gone" }
            ),
            if a.alive {
                Some(Paint::Green)
            } else {
                Some(Paint::Dim)
            },
        ),
        None => ("-".to_owned(), Some(Paint::Dim)),
    };
    let base = match (&r.base_ref, &r.base) {
        (Some(name), Some(id)) if !id.is_empty() => (
            format!("{name}@{}", crate::git::short(id)),
            Some(Paint::Dim),
        ),
        (Some(name), _) => (name.clone(), Some(Paint::Dim)),
        _ => ("-".to_owned(), Some(Paint::Dim)),
    };
    let drift = match (r.ahead, r.behind) {
        (Some(a), Some(b)) => (
            format!("+{a} -{b}"),
            if b > 0 {
                Some(Paint::Yellow)
            } else if a > 0 {
                Some(Paint::Green)
            } else {
                Some(Paint::Dim)
            },
        ),
        _ => ("-".to_owned(), Some(Paint::Dim)),
    };
    let state = match (r.state, r.dirty) {
        (State::Missing, _) => ("missing".to_owned(), Some(Paint::Red)),
        (State::Creating, _) => ("creating".to_owned(), Some(Paint::Yellow)),
        (_, Some(true)) => ("dirty".to_owned(), Some(Paint::Yellow)),
        (_, Some(false)) => ("clean".to_owned(), Some(Paint::Green)),
        _ => ("?".to_owned(), Some(Paint::Yellow)),
    };
    let ports = match r.ports {
        Some(b) => (
            format!("{}-{}", b.first, b.first + b.count.saturating_sub(1)),
            None,
        ),
        None => ("-".to_owned(), Some(Paint::Dim)),
    };
    vec![
        (name, if r.current { Some(Paint::Bold) } else { None }),
        claim,
        review,
        agent,
        (
            r.branch.clone().unwrap_or_else(|| "(detached)".to_owned()),
            None,
        ),
        base,
        drift,
        state,
        ports,
        (r.last_commit.clone().unwrap_or_default(), None),
    ]
}

/// The selected row's path and the paths it owns.
fn selected_details(model: &Model) -> Vec<Text<'static>> {
    let Some(line) = model.selected_line() else {
        return Vec::new();
    };
    let owns = if line.row.owns.is_empty() {
        "owns no paths".to_owned()
    } else {
        format!("owns: {}", line.row.owns.join(", "))
    };
    vec![
        Text::from(format!("{}: {}", line.row.name, line.row.path.display())),
        Text::from(owns),
    ]
}

/// What the status line says: the question being asked, the message, a warning, or the keys.
fn status_line(model: &Model, look: Look) -> Text<'static> {
    match &model.mode {
        Mode::Filter => return Text::from(format!("/{}_", model.filter)),
        Mode::Ask {
            question, answer, ..
        } => return Text::from(format!("{question}: {answer}_")),
        Mode::Confirm { question, .. } => return Text::from(format!("{question} [y/N]")),
        Mode::Pane(_) => {
            return Text::from("up/down, j/k, space, pgup/pgdn scroll · q or esc closes");
        }
        _ => {}
    }
    if let Some(message) = &model.message {
        let paint = if message.error {
            Some(Paint::Red)
        } else {
            Some(Paint::Green)
        };
        return Text::from(Span::styled(message.text.clone(), look.paint(paint)));
    }
    if let Some(warning) = model.warnings.first() {
        return Text::from(Span::styled(
            format!("warning: {warning}"),
            look.paint(Some(Paint::Yellow)),
        ));
    }
    let commands: String = keys::COMMANDS
        .iter()
        .map(|(key, _, word, _)| format!(" · {key} {word}"))
        .collect();
    Text::from(format!(
        "up/down select · enter switch{commands} · / filter · r refresh · ? keys · q quit"
    ))
}

fn help(frame: &mut Frame, area: Rect) {
    let keys = keys::help();
    let wide = keys.iter().map(|(k, _)| k.width()).max().unwrap_or(0);
    let lines: Vec<Text> = keys
        .iter()
        .map(|(key, what)| Text::from(format!("  {key:<wide$}  {what}")))
        .collect();
    frame.render_widget(Clear, area);
    frame.render_widget(
        Paragraph::new(lines).block(Block::bordered().title(" keys · any key closes ")),
        area,
    );
}

/// A line of the pane, coloured as `git diff` colours one where `diff` says it is one.
fn diff_line(line: &str, diff: bool, look: Look) -> Text<'static> {
    let paint = if !diff {
        None
    } else if line.starts_with("+++") || line.starts_with("---") || line.starts_with("diff ") {
        Some(Paint::Bold)
    } else if line.starts_with('+') {
        Some(Paint::Green)
    } else if line.starts_with('-') {
        Some(Paint::Red)
    } else if line.starts_with("@@") {
        Some(Paint::Dim)
    } else {
        None
    };
    let mut style = look.paint(paint);
    if diff && line.starts_with("@@") && look.colour {
        style = Style::default().fg(Color::Cyan);
    }
    Text::from(Span::styled(line.replace('\t', "    "), style))
}
