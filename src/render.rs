//! Text for people: tables cut to the terminal's width, colour only where git would colour.
//! `Terminal::detect` reads the environment and asks the terminal its size; everything else is
//! pure. JSON never passes through here, so no script ever sees a cut cell or an escape code.

use std::io::IsTerminal as _;

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::names;

// Names of other programs, read here alone: the terminal's, the locale's, git's (its pager and
// its colour settings) and the clicolors convention's (NO_COLOR is in `names`).
const CLICOLOR_FORCE: &str = "CLICOLOR_FORCE";
const GIT_PAGER_IN_USE: &str = "GIT_PAGER_IN_USE";
const COLUMNS: &str = "COLUMNS";
const TERM: &str = "TERM";
const LOCALE: [&str; 3] = ["LC_ALL", "LC_CTYPE", "LANG"];
const COLOR_UI: &str = "color.ui";
const COLOR_PAGER: &str = "color.pager";

/// git's width when the terminal does not say (`term_columns` in git's pager.c).
const DEFAULT_WIDTH: usize = 80;

/// What stdout can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    pub colour: bool,
    /// `↑ ↓ …` can be drawn: a terminal in a UTF-8 locale.
    pub unicode: bool,
    /// The columns to fit into; `None` when stdout is not a terminal (a pipe gets every byte).
    pub width: Option<usize>,
}

/// Everything that decides colour, gathered by [`Terminal::detect`] so that [`wants_colour`] can
/// be pure.
#[derive(Debug, Clone, Default)]
pub struct Signals {
    /// `NO_COLOR` is set and not empty.
    pub no_color: bool,
    /// `CLICOLOR_FORCE` is set, not empty and not `0`.
    pub clicolor_force: bool,
    /// git's `color.ui`.
    pub color_ui: Option<String>,
    /// git's `color.pager`.
    pub color_pager: Option<String>,
    /// The stream the text goes to (stdout for tables, stderr for status) is a terminal.
    pub terminal: bool,
    /// git runs berth with its pager reading stdout (`pager.berth`): git sets `GIT_PAGER_IN_USE`.
    pub pager: bool,
    /// `TERM` is unset or `dumb`.
    pub dumb: bool,
}

/// Whether to colour, in this order: `NO_COLOR` never (DESIGN.md: "never with NO_COLOR"), then
/// git's `color.ui` as git reads it (`never`/false off, `always` on), then `CLICOLOR_FORCE` on,
/// then auto as git's `check_auto_color`: a terminal (or git's pager, unless `color.pager` is
/// false) whose `TERM` is set and not `dumb`.
pub fn wants_colour(s: &Signals) -> bool {
    if s.no_color {
        return false;
    }
    match s.color_ui.as_deref().map(colour_setting) {
        Some(Setting::Never) => return false,
        Some(Setting::Always) => return true,
        Some(Setting::Auto) | None => {}
    }
    if s.clicolor_force {
        return true;
    }
    let shown = if s.pager {
        s.color_pager.as_deref().and_then(git_bool).unwrap_or(true)
    } else {
        s.terminal
    };
    shown && !s.dumb
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setting {
    Never,
    Always,
    Auto,
}

/// A `color.*` value as git's `git_config_colorbool` reads it: a true boolean means auto.
fn colour_setting(value: &str) -> Setting {
    match value.to_ascii_lowercase().as_str() {
        "never" => Setting::Never,
        "always" => Setting::Always,
        "auto" => Setting::Auto,
        other => match git_bool(other) {
            Some(false) => Setting::Never,
            _ => Setting::Auto,
        },
    }
}

/// A git boolean (`true`/`yes`/`on`/`1`, `false`/`no`/`off`/`0`).
fn git_bool(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// A locale name that says UTF-8 (`en_US.UTF-8`, `C.utf8`).
fn utf8_locale(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("utf-8") || name.contains("utf8")
}

impl Signals {
    /// The environment's and git config's colour settings, for text going to a stream that is a
    /// `terminal` or not: one rule for stdout's tables and stderr's status.
    pub fn detect(config: impl Fn(&str) -> Option<String>, terminal: bool) -> Signals {
        Signals {
            no_color: env(names::env::NO_COLOR).is_some(),
            clicolor_force: env(CLICOLOR_FORCE).is_some_and(|v| v != "0"),
            color_ui: config(COLOR_UI),
            color_pager: config(COLOR_PAGER),
            terminal,
            pager: env(GIT_PAGER_IN_USE).is_some_and(|v| git_bool(&v) == Some(true)),
            dumb: env(TERM).is_none_or(|t| t == "dumb"),
        }
    }
}

/// An environment variable, when set and not empty.
fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

impl Terminal {
    /// What stdout is, and what the user asked for: `config` reads a git config value (`git -c`
    /// included), so `color.ui` is read as every other setting is.
    pub fn detect(config: impl Fn(&str) -> Option<String>) -> Terminal {
        let signals = Signals::detect(config, std::io::stdout().is_terminal());
        let shown = signals.terminal || signals.pager;
        let locale = LOCALE.iter().find_map(|key| env(key));
        Terminal {
            colour: wants_colour(&signals),
            unicode: shown && locale.as_deref().is_some_and(utf8_locale),
            width: shown.then(|| {
                env(COLUMNS)
                    .and_then(|c| c.parse().ok())
                    .filter(|c: &usize| *c > 0)
                    .or_else(stdout_width)
                    .unwrap_or(DEFAULT_WIDTH)
            }),
        }
    }

    /// No colour, ASCII, full width: what a pipe gets.
    pub fn plain() -> Terminal {
        Terminal {
            colour: false,
            unicode: false,
            width: None,
        }
    }

    /// Commits ahead and behind: `↑1 ↓0` where arrows can be drawn, `+1 -0` otherwise.
    pub fn ahead_behind(&self, ahead: usize, behind: usize) -> String {
        if self.unicode {
            format!("↑{ahead} ↓{behind}")
        } else {
            format!("+{ahead} -{behind}")
        }
    }

    fn ellipsis(&self) -> &'static str {
        if self.unicode { "…" } else { "..." }
    }

    /// `text` in `paint`, or as it is without colour.
    pub fn paint(&self, text: &str, paint: Option<Paint>) -> String {
        match paint {
            Some(p) if self.colour && !text.is_empty() => {
                format!("\x1b[{}m{text}\x1b[m", p.code())
            }
            _ => text.to_owned(),
        }
    }
}

/// The terminal's columns as the kernel reports them for stdout.
fn stdout_width() -> Option<usize> {
    let size = rustix::termios::tcgetwinsize(std::io::stdout()).ok()?;
    (size.ws_col > 0).then_some(usize::from(size.ws_col))
}

/// The few colours berth uses, as git uses them: green for good, yellow for attention, red for
/// trouble, dim for what matters least.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paint {
    Bold,
    Dim,
    Red,
    Green,
    Yellow,
}

impl Paint {
    fn code(self) -> &'static str {
        match self {
            Paint::Bold => "1",
            Paint::Dim => "2",
            Paint::Red => "31",
            Paint::Green => "32",
            Paint::Yellow => "33",
        }
    }
}

/// One cell: its text and its colour.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cell {
    pub text: String,
    pub paint: Option<Paint>,
    /// A shorter form that says enough (a base's name without its commit), shown when cutting the
    /// first columns was not enough and before the others are cut.
    pub short: Option<String>,
}

impl Cell {
    pub fn painted(text: impl Into<String>, paint: Paint) -> Cell {
        Cell {
            text: text.into(),
            paint: Some(paint),
            short: None,
        }
    }

    pub fn or_shorter(self, short: impl Into<String>) -> Cell {
        Cell {
            short: Some(short.into()),
            ..self
        }
    }

    fn shown(&self, short: bool) -> &str {
        match &self.short {
            Some(text) if short => text,
            _ => &self.text,
        }
    }
}

impl From<String> for Cell {
    fn from(text: String) -> Cell {
        Cell {
            text,
            paint: None,
            short: None,
        }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Cell {
        Cell::from(text.to_owned())
    }
}

/// Where a column loses characters when the table is too wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Never: short values a person needs whole (counts, states, commit ids).
    Keep,
    /// In the middle, keeping both ends (a path's root and its folder, a branch's prefix and name).
    Middle,
    /// At the end (a subject, a session).
    End,
}

#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub header: &'static str,
    pub cut: Cut,
    /// Columns of a lower rank are cut first, down to `min`, before the next rank is touched.
    pub rank: u8,
    pub min: usize,
}

impl Column {
    pub fn keep(header: &'static str) -> Column {
        Column {
            header,
            cut: Cut::Keep,
            rank: 0,
            min: 0,
        }
    }

    pub fn cut(header: &'static str, cut: Cut, rank: u8, min: usize) -> Column {
        Column {
            header,
            cut,
            rank,
            min,
        }
    }
}

/// A row: a two-column gutter mark (`*` for where you stand), its cells, and lines printed under
/// it (a worktree's commits).
#[derive(Debug, Clone, Default)]
pub struct Row {
    pub mark: Option<Cell>,
    pub cells: Vec<Cell>,
    pub details: Vec<Cell>,
}

/// Columns aligned two spaces apart, the last never padded, every line cut to the terminal.
#[derive(Debug, Clone)]
pub struct Table {
    pub columns: Vec<Column>,
    pub header: bool,
    /// Leave two columns on the left for a row's mark.
    pub gutter: bool,
    pub rows: Vec<Row>,
}

/// How a table is laid out once fitted: each column's width, the gutter's, and whether cells
/// show their shorter forms.
struct Layout {
    widths: Vec<usize>,
    gutter: usize,
    short: bool,
}

const GAP: usize = 2;
const DETAIL_INDENT: usize = 4;

impl Table {
    pub fn render(&self, term: &Terminal) -> String {
        let gutter = if self.gutter { GAP } else { 0 };
        let fixed = gutter + GAP * self.columns.len().saturating_sub(1);
        let natural = |short: bool| -> Vec<usize> {
            let mut widths: Vec<usize> = self
                .columns
                .iter()
                .map(|c| if self.header { width(c.header) } else { 0 })
                .collect();
            for row in &self.rows {
                for (w, cell) in widths.iter_mut().zip(&row.cells) {
                    *w = (*w).max(width(cell.shown(short)));
                }
            }
            widths
        };
        let (widths, short) = match term.width {
            None => (natural(false), false),
            Some(room) => {
                let room = room.saturating_sub(fixed);
                let first = fit(&natural(false), &self.columns, room, 0);
                if first.iter().sum::<usize>() <= room {
                    (first, false)
                } else {
                    (fit(&natural(true), &self.columns, room, u8::MAX), true)
                }
            }
        };
        let layout = Layout {
            widths,
            gutter,
            short,
        };
        let mut out = String::new();
        if self.header {
            let cells: Vec<Cell> = self.columns.iter().map(|c| Cell::from(c.header)).collect();
            self.line(&mut out, term, &layout, None, &cells);
        }
        for row in &self.rows {
            self.line(&mut out, term, &layout, row.mark.as_ref(), &row.cells);
            for detail in &row.details {
                let indent = gutter + DETAIL_INDENT;
                let text = match term.width {
                    Some(room) => cut_end(
                        &detail.text,
                        room.saturating_sub(indent).max(1),
                        term.ellipsis(),
                    ),
                    None => detail.text.clone(),
                };
                out.push_str(&" ".repeat(indent));
                out.push_str(&term.paint(&text, detail.paint));
                out.push('\n');
            }
        }
        out
    }

    fn line(
        &self,
        out: &mut String,
        term: &Terminal,
        layout: &Layout,
        mark: Option<&Cell>,
        cells: &[Cell],
    ) {
        let Layout {
            widths,
            gutter,
            short,
        } = layout;
        let gutter = *gutter;
        let mut line = String::new();
        if gutter > 0 {
            let mark = mark.cloned().unwrap_or_default();
            line.push_str(&term.paint(&mark.text, mark.paint));
            line.push_str(&" ".repeat(gutter.saturating_sub(width(&mark.text))));
        }
        let last = self.columns.len().saturating_sub(1);
        for (i, column) in self.columns.iter().enumerate() {
            let cell = cells.get(i).cloned().unwrap_or_default();
            let shown = cell.shown(*short);
            let text = match column.cut {
                _ if width(shown) <= widths[i] => shown.to_owned(),
                Cut::Middle => cut_middle(shown, widths[i], term.ellipsis()),
                Cut::End | Cut::Keep => cut_end(shown, widths[i], term.ellipsis()),
            };
            line.push_str(&term.paint(&text, cell.paint));
            if i < last {
                line.push_str(&" ".repeat(widths[i] - width(&text) + GAP));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
}

/// Columns the text takes on a terminal: a wide (CJK) character takes two, a combining mark none.
fn width(text: &str) -> usize {
    UnicodeWidthStr::width(text)
}

/// The longest start of `chars` that takes at most `max` columns: a wide character that would
/// cross the edge is left out whole, so the cut may be a column short, never a column over.
fn take_width(chars: impl Iterator<Item = char>, max: usize) -> Vec<char> {
    let mut used = 0;
    chars
        .take_while(|&c| {
            used += UnicodeWidthChar::width(c).unwrap_or(0);
            used <= max
        })
        .collect()
}

/// Column widths that fit `room` (the line less its gaps): columns of the lowest rank that may be
/// cut lose a character at a time, widest first, down to their minimum; then the next rank, up to
/// rank `up_to`. What cannot fit after that is left to the terminal to wrap. Pure.
pub fn fit(natural: &[usize], columns: &[Column], room: usize, up_to: u8) -> Vec<usize> {
    let mut widths = natural.to_vec();
    let mut total: usize = widths.iter().sum();
    let mut ranks: Vec<u8> = columns
        .iter()
        .filter(|c| c.cut != Cut::Keep && c.rank <= up_to)
        .map(|c| c.rank)
        .collect();
    ranks.sort_unstable();
    ranks.dedup();
    for rank in ranks {
        while total > room {
            let widest = (0..widths.len())
                .filter(|&i| {
                    let c = &columns[i];
                    c.cut != Cut::Keep && c.rank == rank && widths[i] > c.min
                })
                .max_by_key(|&i| widths[i]);
            let Some(i) = widest else { break };
            widths[i] -= 1;
            total -= 1;
        }
    }
    widths
}

/// `text` in at most `max` columns, its end replaced by `ellipsis`.
pub fn cut_end(text: &str, max: usize, ellipsis: &str) -> String {
    if width(text) <= max {
        return text.to_owned();
    }
    let keep = max.saturating_sub(width(ellipsis));
    if keep == 0 {
        return take_width(text.chars(), max).into_iter().collect();
    }
    take_width(text.chars(), keep)
        .into_iter()
        .chain(ellipsis.chars())
        .collect()
}

/// `text` in at most `max` columns, its middle replaced by `ellipsis`: the end keeps two
/// thirds, as a path's last folders and a branch's name say the most.
pub fn cut_middle(text: &str, max: usize, ellipsis: &str) -> String {
    if width(text) <= max {
        return text.to_owned();
    }
    let keep = max.saturating_sub(width(ellipsis));
    if keep == 0 {
        return take_width(text.chars(), max).into_iter().collect();
    }
    let head = keep / 3;
    let tail = take_width(text.chars().rev(), keep - head);
    take_width(text.chars(), head)
        .into_iter()
        .chain(ellipsis.chars())
        .chain(tail.into_iter().rev())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signals() -> Signals {
        Signals {
            terminal: true,
            ..Signals::default()
        }
    }

    #[test]
    fn a_terminal_gets_colour_and_a_pipe_does_not() {
        assert!(wants_colour(&signals()));
        let pipe = Signals {
            terminal: false,
            ..signals()
        };
        assert!(!wants_colour(&pipe));
    }

    #[test]
    fn no_color_wins_over_every_setting() {
        for ui in [None, Some("always"), Some("auto")] {
            let s = Signals {
                no_color: true,
                clicolor_force: true,
                color_ui: ui.map(str::to_owned),
                ..signals()
            };
            assert!(!wants_colour(&s), "color.ui={ui:?}");
        }
    }

    #[test]
    fn color_ui_never_always_and_auto_read_as_git_reads_them() {
        let with = |ui: &str, terminal: bool| {
            wants_colour(&Signals {
                color_ui: Some(ui.to_owned()),
                terminal,
                ..Signals::default()
            })
        };
        for off in ["never", "false", "no", "off", "0", "NEVER"] {
            assert!(!with(off, true), "{off}");
        }
        assert!(with("always", false), "always colours a pipe too");
        for auto in ["auto", "true", "yes", "1"] {
            assert!(with(auto, true), "{auto} on a terminal");
            assert!(!with(auto, false), "{auto} into a pipe");
        }
    }

    #[test]
    fn clicolor_force_colours_a_pipe_unless_git_says_never() {
        let forced = Signals {
            clicolor_force: true,
            ..Signals::default()
        };
        assert!(wants_colour(&forced));
        let never = Signals {
            color_ui: Some("never".into()),
            ..forced
        };
        assert!(!wants_colour(&never));
    }

    #[test]
    fn a_dumb_terminal_gets_no_colour_unless_asked_for_always() {
        let dumb = Signals {
            dumb: true,
            ..signals()
        };
        assert!(!wants_colour(&dumb));
        let always = Signals {
            color_ui: Some("always".into()),
            ..dumb
        };
        assert!(wants_colour(&always));
    }

    #[test]
    fn gits_pager_is_coloured_unless_color_pager_is_false() {
        let pager = Signals {
            pager: true,
            ..Signals::default()
        };
        assert!(wants_colour(&pager));
        let off = Signals {
            color_pager: Some("false".into()),
            ..pager
        };
        assert!(!wants_colour(&off));
    }

    #[test]
    fn a_utf8_locale_is_recognised_in_its_spellings() {
        assert!(utf8_locale("en_US.UTF-8"));
        assert!(utf8_locale("C.utf8"));
        assert!(!utf8_locale("C"));
        assert!(!utf8_locale("en_US.ISO-8859-1"));
    }

    #[test]
    fn cuts_keep_both_ends_or_the_start_and_never_exceed_the_width() {
        assert_eq!(cut_end("fix the login form", 10, "…"), "fix the l…");
        assert_eq!(
            cut_middle("/home/a/.local/share/git-berth/app/auth", 16, "…"),
            "/home…h/app/auth"
        );
        assert_eq!(cut_middle("abcdefghij", 7, "..."), "a...hij");
        assert_eq!(cut_end("short", 10, "…"), "short");
        assert_eq!(cut_end("abcdef", 2, "..."), "ab", "no room for an ellipsis");
    }

    #[test]
    fn a_cjk_branch_name_takes_two_columns_a_character_and_the_next_column_lines_up() {
        let table = Table {
            columns: vec![Column::keep("BRANCH"), Column::keep("PATH")],
            header: true,
            gutter: false,
            rows: vec![
                Row {
                    cells: vec!["berth/認証-修正".into(), "/w/a".into()],
                    ..Row::default()
                },
                Row {
                    cells: vec!["berth/fix".into(), "/w/b".into()],
                    ..Row::default()
                },
            ],
        };
        let text = table.render(&Terminal::plain());
        let starts: Vec<usize> = text
            .lines()
            .map(|line| width(&line[..line.find("/w/").or_else(|| line.find("PATH")).unwrap()]))
            .collect();
        assert_eq!(starts, [17, 17, 17], "{text}");
    }

    #[test]
    fn a_cut_never_splits_a_wide_character_nor_passes_the_width() {
        for max in 1..16 {
            for cut in [cut_end, cut_middle] {
                let shown = cut("berth/認証-修正", max, "…");
                assert!(width(&shown) <= max, "{shown:?} in {max}");
                assert!(
                    width(&shown) + 1 >= max,
                    "{shown:?} in {max}: at most one column short"
                );
            }
        }
        assert_eq!(cut_end("berth/認証-修正", 10, "…"), "berth/認…");
        assert_eq!(cut_middle("berth/認証-修正", 10, "…"), "ber…-修正");
    }

    #[test]
    fn fitting_cuts_the_lowest_rank_first_and_widest_first_down_to_its_minimum() {
        let columns = [
            Column::keep("A"),
            Column::cut("B", Cut::End, 1, 4),
            Column::cut("C", Cut::Middle, 0, 10),
            Column::cut("D", Cut::End, 0, 10),
        ];
        assert_eq!(fit(&[5, 20, 30, 20], &columns, 75, 9), [5, 20, 30, 20]);
        assert_eq!(fit(&[5, 20, 30, 20], &columns, 65, 9), [5, 20, 20, 20]);
        assert_eq!(fit(&[5, 20, 30, 20], &columns, 55, 9), [5, 20, 15, 15]);
        assert_eq!(fit(&[5, 20, 30, 20], &columns, 35, 9), [5, 10, 10, 10]);
        assert_eq!(
            fit(&[5, 20, 30, 20], &columns, 10, 9),
            [5, 4, 10, 10],
            "what cannot fit is left to wrap"
        );
        assert_eq!(
            fit(&[5, 20, 30, 20], &columns, 35, 0),
            [5, 20, 10, 10],
            "no rank above the one asked for"
        );
    }

    #[test]
    fn a_table_is_aligned_and_its_last_column_unpadded() {
        let table = Table {
            columns: vec![Column::keep("NAME"), Column::cut("PATH", Cut::Middle, 0, 8)],
            header: true,
            gutter: true,
            rows: vec![
                Row {
                    mark: Some("*".into()),
                    cells: vec!["a".into(), "/x/y".into()],
                    details: vec!["one detail".into()],
                },
                Row {
                    cells: vec!["bbbbbb".into(), "/z".into()],
                    ..Row::default()
                },
            ],
        };
        assert_eq!(
            table.render(&Terminal::plain()),
            "  NAME    PATH\n* a       /x/y\n      one detail\n  bbbbbb  /z\n"
        );
    }

    #[test]
    fn a_cell_shows_its_shorter_form_once_the_first_rank_is_cut_and_before_the_next() {
        let term = Terminal {
            width: Some(30),
            ..Terminal::plain()
        };
        let table = |name: &str| Table {
            columns: vec![
                Column::cut("NAME", Cut::End, 1, 4),
                Column::keep("BASE"),
                Column::cut("PATH", Cut::Middle, 0, 8),
            ],
            header: false,
            gutter: false,
            rows: vec![Row {
                cells: vec![
                    name.into(),
                    Cell::from("main@1234567").or_shorter("main"),
                    "/a/long/path/to/it".into(),
                ],
                ..Row::default()
            }],
        };
        assert_eq!(
            table("ab").render(&term),
            "ab  main@1234567  /a/.../to/it\n",
            "the path was enough"
        );
        assert_eq!(
            table("a-long-name").render(&term),
            "a-long-name  main  /a.../to/it\n"
        );
    }

    #[test]
    fn a_table_on_a_narrow_terminal_cuts_its_path_and_colours_its_cells() {
        let term = Terminal {
            colour: true,
            unicode: true,
            width: Some(20),
        };
        let table = Table {
            columns: vec![Column::keep("NAME"), Column::cut("PATH", Cut::Middle, 0, 8)],
            header: false,
            gutter: false,
            rows: vec![Row {
                cells: vec![
                    Cell::painted("auth", Paint::Green),
                    "/home/alice/worktrees/auth".into(),
                ],
                ..Row::default()
            }],
        };
        assert_eq!(table.render(&term), "\x1b[32mauth\x1b[m  /hom…rees/auth\n");
    }
}
