//! Machine-wide port blocks: `ports.toml` in the data dir, guarded by `ports.lock`, shared by every
//! clone on the machine. Which block a worktree gets is decided by a pure function (`plan`) over the
//! held blocks and a busy probe that only ever connects, never binds; a block is never derived from
//! a name. Every write is atomic under the lock after re-reading the file; a file that does not
//! parse is an error that names it, and is never overwritten.
//!
//! Lock order: a caller that holds the registry lock may take the ports lock (every [`Store`]
//! method takes and releases it by itself); nothing may take the registry lock while holding the
//! ports lock.

use std::fmt;
use std::fs;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use crate::names::MAX_PORTS;
use crate::names::{self, PORT_UNIT};
use crate::{clock, error, paths, process, statefile};

/// The format this build reads and writes; a newer file is refused rather than rewritten.
pub const FORMAT_VERSION: u32 = 1;
/// How long the probe waits for one connection on one address.
pub const PROBE_TIMEOUT: Duration = Duration::from_millis(30);
/// While the process that reserved a block still runs, its worktree folder may not exist yet: for
/// this long such a block is not taken over nor pruned, so a concurrent `add` in another clone
/// cannot grab it between the reservation and the worktree's creation.
pub const RESERVE_GRACE_SECS: u64 = 600;

/// `berth.portRange`: the inclusive ports from which blocks are cut, in whole units of
/// [`PORT_UNIT`]; ports after the last whole unit are never handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortRange {
    pub first: u16,
    pub last: u16,
}

/// [`PORT_UNIT`] consecutive ports starting at `first`: the grain in which blocks are handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Unit {
    pub first: u16,
}

/// A worktree's ports: `count` ports (what the project asked for) from `first`. The block reserves
/// whole units, `first ..= first + units * 10 - 1`. Serializes as `{"first": 24000, "count": 20}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    pub first: u16,
    pub count: u16,
}

/// One reservation in `ports.toml`: which clone's worktree holds which block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The clone's common dir, as the repository layer resolves it (compared as given).
    pub common_dir: PathBuf,
    /// The worktree's name in that clone's registry.
    pub name: String,
    pub path: PathBuf,
    pub first: u16,
    /// Whole units reserved: `ceil(count / 10)`.
    pub units: u16,
    /// Ports the project asked for.
    pub count: u16,
    /// The process that reserved the block (0 when unknown), for [`RESERVE_GRACE_SECS`].
    #[serde(default)]
    pub pid: u32,
    /// Seconds since the Unix epoch when the block was reserved.
    #[serde(default)]
    pub reserved: u64,
}

/// What [`Store::reserve`] gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reserved {
    pub block: Block,
    /// The block this worktree held before: `None` when it had none, `Some(block)` when it was
    /// kept as it was, another block when it was resized.
    pub previous: Option<Block>,
    /// Entries of gone worktrees whose blocks overlapped the new one and were taken over. Run each
    /// one's teardown before the new worktree's setup when its clone still exists
    /// ([`Entry::clone_exists`]).
    pub taken_over: Vec<Entry>,
}

/// No run of free units holds the ports asked for. Nothing was changed; the caller may free blocks
/// (remove landed worktrees) and try again, else refuse with [`Exhausted::refusal`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exhausted {
    pub wanted: u16,
    pub range: PortRange,
}

impl PortRange {
    /// Parse a `berth.portRange` value such as `24000-24999`.
    pub fn parse(raw: &str) -> Result<PortRange> {
        let why = |reason: &str| {
            error::misconfigured(
                format!("{} is '{raw}': {reason}", names::config::PORT_RANGE),
                format!(
                    "git config {} {}",
                    names::config::PORT_RANGE,
                    names::DEFAULT_PORT_RANGE
                ),
            )
        };
        let (first, last) = raw
            .trim()
            .split_once('-')
            .and_then(|(a, b)| Some((a.trim().parse::<u16>().ok()?, b.trim().parse::<u16>().ok()?)))
            .ok_or_else(|| why("not two ports from 1 to 65535 joined by '-'"))?;
        if first == 0 {
            return Err(why("port 0 cannot be connected to"));
        }
        if first > last {
            return Err(why("its first port is above its last"));
        }
        if u32::from(last) - u32::from(first) + 1 < u32::from(PORT_UNIT) {
            return Err(why(&format!(
                "it holds fewer than {PORT_UNIT} ports, one unit"
            )));
        }
        Ok(PortRange { first, last })
    }

    /// The configured value, or [`names::DEFAULT_PORT_RANGE`] when `berth.portRange` is not set.
    pub fn from_config(value: Option<&str>) -> Result<PortRange> {
        PortRange::parse(value.unwrap_or(names::DEFAULT_PORT_RANGE))
    }

    /// The whole units of the range, lowest first.
    pub fn units(&self) -> impl Iterator<Item = Unit> + use<> {
        let (first, last) = (u32::from(self.first), u32::from(self.last));
        (first..=last)
            .step_by(usize::from(PORT_UNIT))
            .take_while(move |&p| p + u32::from(PORT_UNIT) - 1 <= last)
            .map(|p| Unit { first: p as u16 })
    }
}

impl fmt::Display for PortRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.first, self.last)
    }
}

impl Unit {
    pub fn ports(self) -> RangeInclusive<u16> {
        self.first..=self.first + (PORT_UNIT - 1)
    }
}

impl Block {
    /// Whole units the block reserves.
    pub fn units(&self) -> u16 {
        units_for(self.count)
    }

    /// Every port the block reserves, including those past `count` in its last unit.
    pub fn reserved(&self) -> RangeInclusive<u16> {
        self.first..=(self.end() - 1) as u16
    }

    /// One past the last reserved port (may be 65536).
    fn end(&self) -> u32 {
        u32::from(self.first) + u32::from(self.units()) * u32::from(PORT_UNIT)
    }

    pub fn overlaps(&self, other: &Block) -> bool {
        u32::from(self.first) < other.end() && u32::from(other.first) < self.end()
    }

    fn holds_unit(&self, unit: Unit) -> bool {
        self.overlaps(&Block {
            first: unit.first,
            count: PORT_UNIT,
        })
    }
}

impl Entry {
    pub fn block(&self) -> Block {
        Block {
            first: self.first,
            count: self.count,
        }
    }

    /// Whether the clone this worktree belonged to is still on disk, so its teardown can run.
    pub fn clone_exists(&self) -> bool {
        self.common_dir.exists()
    }

    fn is(&self, common_dir: &Path, name: &str) -> bool {
        self.common_dir == common_dir && self.name == name
    }
}

impl Exhausted {
    /// The error to show when freeing landed worktrees did not help.
    pub fn refusal(&self) -> anyhow::Error {
        error::refuse_with_hint(
            self.to_string(),
            format!(
                "remove finished worktrees with `{} clean`, or widen the range: git config {} <first>-<last>",
                names::TOOL,
                names::config::PORT_RANGE
            ),
        )
    }
}

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no {} free consecutive port units for {} ports in {} {}",
            units_for(self.wanted),
            self.wanted,
            names::config::PORT_RANGE,
            self.range
        )
    }
}

fn units_for(count: u16) -> u16 {
    count.div_ceil(PORT_UNIT)
}

/// The lowest run of `ceil(wanted / 10)` consecutive units of `range` that no `held` block
/// overlaps and where `busy_unit` finds nothing listening; `None` when there is none, or when
/// `wanted` is not 1 to [`MAX_PORTS`]. `busy_unit` is asked at most once per unit, and only about
/// units no held block covers.
pub fn plan(
    range: &PortRange,
    held: &[Block],
    busy_unit: impl Fn(Unit) -> bool,
    wanted: u16,
) -> Option<Block> {
    if !(1..=MAX_PORTS).contains(&wanted) {
        return None;
    }
    let units: Vec<Unit> = range.units().collect();
    let need = usize::from(units_for(wanted));
    let taken: Vec<bool> = units
        .iter()
        .map(|&u| held.iter().any(|b| b.holds_unit(u)))
        .collect();
    let mut busy: Vec<Option<bool>> = vec![None; units.len()];
    let mut start = 0;
    while start + need <= units.len() {
        // Held blocks are cheap to check: look at the whole run before probing any of it.
        let blocker = (start..start + need).rev().find(|&i| taken[i]).or_else(|| {
            (start..start + need).find(|&i| *busy[i].get_or_insert_with(|| busy_unit(units[i])))
        });
        match blocker {
            Some(at) => start = at + 1,
            None => {
                return Some(Block {
                    first: units[start].first,
                    count: wanted,
                });
            }
        }
    }
    None
}

/// Whether anything listens on one of the unit's ports. A closed loopback port refuses at once,
/// so the ports are tried one by one (faster than threads, measured: about 0.5 ms a unit); once a
/// connection times out, something drops them, and the rest are tried in parallel instead.
pub fn unit_is_busy(unit: Unit) -> bool {
    let ports: Vec<u16> = unit.ports().collect();
    for (at, &port) in ports.iter().enumerate() {
        match probe(port) {
            Probe::Busy => return true,
            Probe::Free => {}
            Probe::Slow => return any_busy_in_parallel(&ports[at + 1..]),
        }
    }
    false
}

/// Whether a TCP connection to `port` on 127.0.0.1 or ::1 is accepted. Connecting, never binding:
/// a bind on all addresses can raise a firewall prompt in front of an unwatched agent.
pub fn port_is_busy(port: u16) -> bool {
    probe(port) == Probe::Busy
}

#[derive(Debug, PartialEq, Eq)]
enum Probe {
    Busy,
    Free,
    /// Not accepted, and at least one address let the connection time out.
    Slow,
}

fn probe(port: u16) -> Probe {
    let mut answer = Probe::Free;
    for addr in [
        SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        SocketAddr::from((Ipv6Addr::LOCALHOST, port)),
    ] {
        match TcpStream::connect_timeout(&addr, PROBE_TIMEOUT) {
            Ok(_) => return Probe::Busy,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => answer = Probe::Slow,
            Err(_) => {}
        }
    }
    answer
}

fn any_busy_in_parallel(ports: &[u16]) -> bool {
    std::thread::scope(|scope| {
        let probes: Vec<_> = ports
            .iter()
            .map(|&port| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || port_is_busy(port))
                    .map_err(|_| port)
            })
            .collect();
        // Where a thread cannot be had, probe inline; a probe that panicked counts as busy.
        let answers: Vec<bool> = probes
            .into_iter()
            .map(|probe| match probe {
                Ok(handle) => handle.join().unwrap_or(true),
                Err(port) => port_is_busy(port),
            })
            .collect();
        answers.contains(&true)
    })
}

/// What the store needs to know about the world beyond the file, so tests can set it.
struct Facts<'a> {
    now: u64,
    pid: u32,
    exists: &'a dyn Fn(&Path) -> bool,
    alive: &'a dyn Fn(u32) -> bool,
    busy: &'a dyn Fn(Unit) -> bool,
}

impl Facts<'_> {
    fn real(now: u64) -> Facts<'static> {
        Facts {
            now,
            pid: std::process::id(),
            exists: &path_exists,
            alive: &process_alive,
            busy: &unit_is_busy,
        }
    }
}

fn path_exists(path: &Path) -> bool {
    path.exists()
}

fn process_alive(pid: u32) -> bool {
    pid != 0 && process::alive(pid, None)
}

/// An entry whose clone is gone, or whose worktree folder is gone unless it was reserved moments
/// ago by a process that still runs (and may be about to create the folder).
fn stale(entry: &Entry, facts: &Facts) -> bool {
    if !(facts.exists)(&entry.common_dir) {
        return true;
    }
    if (facts.exists)(&entry.path) {
        return false;
    }
    let young = facts.now.saturating_sub(entry.reserved) < RESERVE_GRACE_SECS;
    !(young && (facts.alive)(entry.pid))
}

/// The file's contents.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct Book {
    #[serde(default)]
    version: u32,
    #[serde(default, rename = "block")]
    entries: Vec<Entry>,
}

/// Reserve in `book`; on [`Exhausted`] the book is left untouched.
fn reserve_in(
    book: &mut Book,
    range: &PortRange,
    (common_dir, name, path): (&Path, &str, &Path),
    wanted: u16,
    facts: &Facts,
) -> Result<Reserved, Exhausted> {
    let own = book.entries.iter().position(|e| e.is(common_dir, name));
    let previous = own.map(|at| book.entries[at].block());
    if let (Some(at), Some(block)) = (own, previous)
        && block.count == wanted
    {
        // Stamped afresh, so the grace covers a worktree being made again at this path.
        let entry = &mut book.entries[at];
        entry.path = path.to_owned();
        entry.pid = facts.pid;
        entry.reserved = facts.now;
        return Ok(Reserved {
            block,
            previous,
            taken_over: Vec::new(),
        });
    }
    let gone: Vec<bool> = book.entries.iter().map(|e| stale(e, facts)).collect();
    let held: Vec<Block> = book
        .entries
        .iter()
        .zip(&gone)
        .enumerate()
        .filter(|&(at, (_, &gone))| !gone && Some(at) != own)
        .map(|(_, (e, _))| e.block())
        .collect();
    let block = plan(range, &held, facts.busy, wanted).ok_or(Exhausted {
        wanted,
        range: *range,
    })?;
    let mut taken_over = Vec::new();
    let mut kept = Vec::with_capacity(book.entries.len() + 1);
    for (at, (entry, gone)) in std::mem::take(&mut book.entries)
        .into_iter()
        .zip(gone)
        .enumerate()
    {
        if Some(at) == own {
            continue;
        }
        if gone && entry.block().overlaps(&block) {
            taken_over.push(entry);
        } else {
            kept.push(entry);
        }
    }
    kept.push(Entry {
        common_dir: common_dir.to_owned(),
        name: name.to_owned(),
        path: path.to_owned(),
        first: block.first,
        units: block.units(),
        count: block.count,
        pid: facts.pid,
        reserved: facts.now,
    });
    book.entries = kept;
    Ok(Reserved {
        block,
        previous,
        taken_over,
    })
}

/// Where the machine's port blocks are kept.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
}

impl Store {
    /// The store in `dir`; tests pass a scratch folder.
    pub fn new(dir: PathBuf) -> Self {
        Store { dir }
    }

    /// The machine's store, in `${XDG_DATA_HOME:-~/.local/share}/git-berth`.
    pub fn machine() -> Result<Self> {
        Ok(Store::new(paths::data_dir()?))
    }

    /// Refuse unless the ports file can be written (its folder, made if missing, takes a new
    /// file): checked before a removal destroys anything.
    pub fn check_writable(&self) -> Result<()> {
        let _ = fs::create_dir_all(&self.dir);
        statefile::check_writable(&self.path(), "port blocks")
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(names::PORTS_FILE)
    }

    /// Every entry, read without the lock (a rename is atomic).
    pub fn load(&self) -> Result<Vec<Entry>> {
        Ok(read(&self.path())?.entries)
    }

    /// The blocks of one clone's worktrees, for `list --full`.
    pub fn list_for(&self, common_dir: &Path) -> Result<Vec<Entry>> {
        let mut entries = self.load()?;
        entries.retain(|e| e.common_dir == common_dir);
        Ok(entries)
    }

    /// Give the worktree `name` of the clone at `common_dir`, at `path`, a block of `wanted`
    /// ports (1 to [`MAX_PORTS`]) in `range`. A block it already holds is kept when it has the same
    /// count, else replaced by the lowest free run. Blocks of gone worktrees (see
    /// [`Store::prunable`]) count as free and are taken over when the run reaches them. A kept block
    /// stays even when `range` no longer covers it. Call it before the worktree folder exists if
    /// need be: for [`RESERVE_GRACE_SECS`] this process's reservation is safe from takeover. The
    /// outer error is a failure to read, lock or write; the inner one means no run is free, and
    /// then nothing was changed (a block being resized is still held).
    pub fn reserve(
        &self,
        range: &PortRange,
        common_dir: &Path,
        name: &str,
        path: &Path,
        wanted: u16,
    ) -> Result<Result<Reserved, Exhausted>> {
        self.reserve_with(
            range,
            (common_dir, name, path),
            wanted,
            &Facts::real(clock::now()),
        )
    }

    fn reserve_with(
        &self,
        range: &PortRange,
        owner: (&Path, &str, &Path),
        wanted: u16,
        facts: &Facts,
    ) -> Result<Result<Reserved, Exhausted>> {
        if !(1..=MAX_PORTS).contains(&wanted) {
            return Err(error::refuse_with_hint(
                format!(
                    "worktree '{}' asks for {wanted} ports; a project may ask for 1 to {MAX_PORTS}",
                    owner.1
                ),
                format!("{} install --ports <n>", names::TOOL),
            ));
        }
        self.update(|book| reserve_in(book, range, owner, wanted, facts))
    }

    /// Free the block of worktree `name` of the clone at `common_dir`, returning it if it had one.
    pub fn free(&self, common_dir: &Path, name: &str) -> Result<Option<Entry>> {
        self.update(|book| {
            let at = book.entries.iter().position(|e| e.is(common_dir, name))?;
            Some(book.entries.remove(at))
        })
    }

    /// Entries whose worktree folder is gone (past [`RESERVE_GRACE_SECS`] while the reserving
    /// process runs), or whose clone is gone. Read without the lock; changes nothing.
    pub fn prunable(&self) -> Result<Vec<Entry>> {
        let facts = Facts::real(clock::now());
        let mut entries = self.load()?;
        entries.retain(|e| stale(e, &facts));
        Ok(entries)
    }

    /// Free every [`Store::prunable`] block, judged again under the lock, and return them.
    pub fn prune(&self) -> Result<Vec<Entry>> {
        self.prune_with(&Facts::real(clock::now()))
    }

    fn prune_with(&self, facts: &Facts) -> Result<Vec<Entry>> {
        self.update(|book| {
            let (gone, live) = std::mem::take(&mut book.entries)
                .into_iter()
                .partition(|e| stale(e, facts));
            book.entries = live;
            gone
        })
    }

    /// Change the book under the lock, re-read first; write it atomically only when it changed.
    fn update<T>(&self, change: impl FnOnce(&mut Book) -> T) -> Result<T> {
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("cannot create {}", self.dir.display()))?;
        let lock_path = self.dir.join(names::PORTS_LOCK);
        let _lock = crate::lockwait::lock(&lock_path, "the port blocks")?;
        let mut book = read(&self.path())?;
        let before = book.clone();
        let out = change(&mut book);
        if book != before {
            book.version = FORMAT_VERSION;
            write_atomic(&self.path(), &book)?;
        }
        Ok(out)
    }
}

fn read(path: &Path) -> Result<Book> {
    match statefile::read_text(path, "port blocks")? {
        None => Ok(Book::default()),
        Some(text) => {
            parse(&text).map_err(|reason| statefile::corrupt(path, "port blocks", &reason))
        }
    }
}

/// Parse the file; the error is one line. An entry that could not have been written is refused.
fn parse(text: &str) -> Result<Book, String> {
    let book: Book = statefile::parse(text, FORMAT_VERSION)?;
    for e in &book.entries {
        let end = u32::from(e.first) + u32::from(e.units) * u32::from(PORT_UNIT);
        if e.first == 0
            || !(1..=MAX_PORTS).contains(&e.count)
            || e.units != units_for(e.count)
            || end > 65536
        {
            return Err(format!(
                "block of '{}' ({}) has first = {}, units = {}, count = {}",
                e.name,
                e.common_dir.display(),
                e.first,
                e.units,
                e.count
            ));
        }
    }
    Ok(book)
}

fn write_atomic(path: &Path, book: &Book) -> Result<()> {
    let text = toml::to_string(book).context("cannot serialize the port blocks")?;
    statefile::write_atomic(path, text.as_bytes(), None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn range(text: &str) -> PortRange {
        PortRange::parse(text).unwrap()
    }

    fn block(first: u16, count: u16) -> Block {
        Block { first, count }
    }

    fn never(_: Unit) -> bool {
        false
    }

    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("berth-ports-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// A scratch folder with a store, two clones' common dirs and a folder per worktree name.
    struct Machine {
        root: PathBuf,
        store: Store,
    }

    impl Machine {
        fn new(test: &str) -> Machine {
            let root = scratch(test);
            let store = Store::new(root.join("data"));
            for clone in ["a", "b"] {
                fs::create_dir_all(root.join(clone).join(".git")).unwrap();
            }
            Machine { root, store }
        }

        fn common_dir(&self, clone: &str) -> PathBuf {
            self.root.join(clone).join(".git")
        }

        fn worktree(&self, clone: &str, name: &str) -> PathBuf {
            let path = self.root.join("worktrees").join(clone).join(name);
            fs::create_dir_all(&path).unwrap();
            path
        }

        /// Reserve as a process that has since exited, with nothing listening anywhere.
        fn reserve(&self, clone: &str, name: &str, wanted: u16) -> Result<Reserved, Exhausted> {
            self.reserve_in(&range("24000-24999"), clone, name, wanted)
        }

        fn reserve_in(
            &self,
            range: &PortRange,
            clone: &str,
            name: &str,
            wanted: u16,
        ) -> Result<Reserved, Exhausted> {
            let path = self.worktree(clone, name);
            self.store
                .reserve_with(
                    range,
                    (&self.common_dir(clone), name, &path),
                    wanted,
                    &facts(clock::now(), &never),
                )
                .unwrap()
        }
    }

    impl Drop for Machine {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.root);
        }
    }

    fn facts<'a>(now: u64, busy: &'a dyn Fn(Unit) -> bool) -> Facts<'a> {
        Facts {
            now,
            pid: 0,
            exists: &path_exists,
            alive: &|_| false,
            busy,
        }
    }

    // Parsing the range.

    #[test]
    fn the_default_range_is_a_hundred_units_from_24000() {
        let r = PortRange::from_config(None).unwrap();
        assert_eq!(
            r,
            PortRange {
                first: 24000,
                last: 24999
            }
        );
        let units: Vec<Unit> = r.units().collect();
        assert_eq!(units.len(), 100);
        assert_eq!(units[0].ports(), 24000..=24009);
        assert_eq!(units[99].ports(), 24990..=24999);
        assert_eq!(r.to_string(), "24000-24999");
    }

    #[test]
    fn ports_after_the_last_whole_unit_are_never_handed_out() {
        let units: Vec<u16> = range(" 30000 - 30025 ").units().map(|u| u.first).collect();
        assert_eq!(units, vec![30000, 30010]);
        let top: Vec<u16> = range("65520-65535").units().map(|u| u.first).collect();
        assert_eq!(top, vec![65520]);
    }

    #[test]
    fn a_bad_range_names_the_key_and_the_fix() {
        for bad in [
            "",
            "24000",
            "24000-",
            "a-b",
            "24000..24999",
            "0-100",
            "24999-24000",
            "24000-24005",
            "24000-70000",
            "-5-10",
        ] {
            let err = PortRange::parse(bad).unwrap_err();
            let (line, hint) = error::render(&err);
            assert!(line.starts_with("berth.portRange is '"), "{bad}: {line}");
            assert!(line.contains(bad), "{bad}: {line}");
            assert_eq!(
                hint.as_deref(),
                Some("git config berth.portRange 24000-24999"),
                "{bad}"
            );
        }
    }

    // Planning.

    #[test]
    fn the_lowest_run_is_taken_first() {
        let r = range("24000-24999");
        assert_eq!(plan(&r, &[], never, 20), Some(block(24000, 20)));
        assert_eq!(plan(&r, &[], never, 1), Some(block(24000, 1)));
    }

    #[test]
    fn a_held_block_is_skipped() {
        let r = range("24000-24999");
        let held = [block(24000, 10), block(24020, 20)];
        assert_eq!(plan(&r, &held, never, 10), Some(block(24010, 10)));
        // Two units do not fit in the one-unit gap at 24010.
        assert_eq!(plan(&r, &held, never, 20), Some(block(24040, 20)));
    }

    #[test]
    fn a_held_block_off_the_unit_grid_blocks_every_unit_it_touches() {
        // Held by a clone whose berth.portRange starts elsewhere.
        let held = [block(24005, 10)];
        assert_eq!(
            plan(&range("24000-24999"), &held, never, 10),
            Some(block(24020, 10))
        );
    }

    #[test]
    fn a_busy_unit_moves_the_run_past_it() {
        let r = range("24000-24999");
        let busy = |u: Unit| u.first == 24010;
        assert_eq!(plan(&r, &[], busy, 10), Some(block(24000, 10)));
        assert_eq!(plan(&r, &[], busy, 20), Some(block(24020, 20)));
        let from_the_start = |u: Unit| u.first < 24030;
        assert_eq!(plan(&r, &[], from_the_start, 5), Some(block(24030, 5)));
    }

    #[test]
    fn held_units_are_never_probed_and_no_unit_is_probed_twice() {
        let asked = RefCell::new(Vec::new());
        let busy = |u: Unit| {
            asked.borrow_mut().push(u.first);
            u.first == 24030
        };
        let got = plan(&range("24000-24999"), &[block(24000, 20)], busy, 30);
        assert_eq!(got, Some(block(24040, 30)));
        assert_eq!(*asked.borrow(), vec![24020, 24030, 24040, 24050, 24060]);
    }

    #[test]
    fn twenty_five_ports_take_three_units() {
        let r = range("24000-24999");
        let got = plan(&r, &[], never, 25).unwrap();
        assert_eq!(got, block(24000, 25));
        assert_eq!(got.units(), 3);
        assert_eq!(got.reserved(), 24000..=24029);
        assert_eq!(plan(&r, &[got], never, 1), Some(block(24030, 1)));
    }

    #[test]
    fn a_tiny_range_runs_out() {
        let r = range("24000-24019");
        assert_eq!(plan(&r, &[], never, 21), None);
        assert_eq!(plan(&r, &[block(24000, 10)], never, 20), None);
        assert_eq!(
            plan(&r, &[block(24000, 10)], never, 10),
            Some(block(24010, 10))
        );
        assert_eq!(plan(&r, &[block(24000, 20)], never, 1), None);
        assert_eq!(plan(&r, &[], |_| true, 1), None);
    }

    #[test]
    fn a_request_outside_one_to_a_thousand_gets_nothing() {
        let r = range("24000-24999");
        assert_eq!(plan(&r, &[], never, 1000), Some(block(24000, 1000)));
        assert_eq!(plan(&r, &[], never, 0), None);
        assert_eq!(plan(&r, &[], never, 1001), None);
    }

    // The probe.

    #[test]
    fn a_real_listener_makes_its_unit_busy() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let unit = Unit {
            first: port - port % PORT_UNIT,
        };
        assert!(port_is_busy(port));
        assert!(unit_is_busy(unit));
        // A range of that unit and its neighbour: the plan never lands on the listener.
        let r = if unit.first >= 20 {
            PortRange {
                first: unit.first - 10,
                last: unit.first + 9,
            }
        } else {
            PortRange {
                first: unit.first,
                last: unit.first + 19,
            }
        };
        if let Some(got) = plan(&r, &[], unit_is_busy, 10) {
            assert!(!got.reserved().contains(&port), "{got:?} holds {port}");
        }
        assert_eq!(
            plan(
                &PortRange {
                    first: unit.first,
                    last: unit.first + 9
                },
                &[],
                unit_is_busy,
                1
            ),
            None
        );
        drop(listener);
    }

    #[test]
    fn the_parallel_probe_finds_a_listener_too() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert!(any_busy_in_parallel(&[port.wrapping_add(1), port]));
        drop(listener);
    }

    // Staleness.

    #[test]
    fn a_gone_worktree_reserved_moments_ago_by_a_live_process_is_not_stale() {
        let m = Machine::new("stale");
        let entry = Entry {
            common_dir: m.common_dir("a"),
            name: "x".into(),
            path: m.root.join("not-yet"),
            first: 24000,
            units: 1,
            count: 10,
            pid: 42,
            reserved: 1000,
        };
        let alive = |pid: u32| pid == 42;
        let at = |now: u64| Facts {
            now,
            pid: 0,
            exists: &path_exists,
            alive: &alive,
            busy: &never,
        };
        assert!(!stale(&entry, &at(1000 + 5)));
        assert!(stale(&entry, &at(1000 + RESERVE_GRACE_SECS)));
        let dead = Entry {
            pid: 7,
            ..entry.clone()
        };
        assert!(stale(&dead, &at(1000 + 5)));
        let there = Entry {
            path: m.worktree("a", "x"),
            reserved: 0,
            ..dead.clone()
        };
        assert!(!stale(&there, &at(1000 + 5)));
        let orphan = Entry {
            common_dir: m.root.join("deleted-clone/.git"),
            ..there
        };
        assert!(stale(&orphan, &at(1000 + 5)));
    }

    // The store.

    #[test]
    fn a_reservation_reads_back_the_same() {
        let m = Machine::new("roundtrip");
        assert!(m.store.load().unwrap().is_empty());
        let got = m.reserve("a", "auth", 20).unwrap();
        assert_eq!(
            got,
            Reserved {
                block: block(24000, 20),
                previous: None,
                taken_over: vec![]
            }
        );
        let entries = m.store.load().unwrap();
        assert_eq!(entries.len(), 1);
        let e = &entries[0];
        assert_eq!(
            (&e.common_dir, e.name.as_str(), &e.path),
            (&m.common_dir("a"), "auth", &m.worktree("a", "auth"))
        );
        assert_eq!((e.first, e.units, e.count), (24000, 2, 20));
        let text = fs::read_to_string(m.store.path()).unwrap();
        assert!(text.contains("[[block]]"), "{text}");
        assert!(text.starts_with("version = 1"), "{text}");
        let leftovers: Vec<_> = fs::read_dir(m.root.join("data"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains(".tmp."))
            .collect();
        assert!(leftovers.is_empty(), "temp files left: {leftovers:?}");
        assert_eq!(
            serde_json::to_string(&got.block).unwrap(),
            r#"{"first":24000,"count":20}"#
        );
    }

    #[test]
    fn two_clones_never_share_a_block_even_for_one_name() {
        let m = Machine::new("clones");
        let a = m.reserve("a", "auth", 10).unwrap().block;
        let b = m.reserve("b", "auth", 10).unwrap().block;
        assert_eq!((a, b), (block(24000, 10), block(24010, 10)));
        assert_eq!(m.store.list_for(&m.common_dir("a")).unwrap()[0].block(), a);
        assert_eq!(m.store.list_for(&m.common_dir("b")).unwrap()[0].block(), b);
        assert!(m.store.list_for(&m.root.join("c/.git")).unwrap().is_empty());
    }

    #[test]
    fn a_freed_block_is_given_again() {
        let m = Machine::new("free");
        m.reserve("a", "one", 10).unwrap();
        m.reserve("a", "two", 10).unwrap();
        let freed = m.store.free(&m.common_dir("a"), "one").unwrap().unwrap();
        assert_eq!(freed.block(), block(24000, 10));
        assert_eq!(m.store.free(&m.common_dir("a"), "one").unwrap(), None);
        assert_eq!(m.store.free(&m.common_dir("b"), "two").unwrap(), None);
        assert_eq!(m.reserve("a", "three", 10).unwrap().block, block(24000, 10));
    }

    #[test]
    fn a_block_of_the_same_size_is_kept_and_another_size_is_moved() {
        let m = Machine::new("resize");
        m.reserve("a", "one", 10).unwrap();
        m.reserve("a", "two", 10).unwrap();
        let again = m.reserve("a", "one", 10).unwrap();
        assert_eq!(again.block, block(24000, 10));
        assert_eq!(again.previous, Some(again.block));
        let grown = m.reserve("a", "one", 20).unwrap();
        assert_eq!(grown.block, block(24020, 20));
        assert_eq!(grown.previous, Some(block(24000, 10)));
        let shrunk = m.reserve("a", "one", 5).unwrap();
        assert_eq!(shrunk.block, block(24000, 5));
        assert_eq!(m.store.load().unwrap().len(), 2);
    }

    #[test]
    fn a_gone_worktrees_block_is_taken_over_and_handed_back() {
        let m = Machine::new("takeover");
        m.reserve("a", "old", 10).unwrap();
        m.reserve("a", "keep", 10).unwrap();
        fs::remove_dir_all(m.worktree("a", "old")).unwrap();
        let path = m.root.join("worktrees/b/new");
        fs::create_dir_all(&path).unwrap();
        let got = m
            .store
            .reserve_with(
                &range("24000-24999"),
                (&m.common_dir("b"), "new", &path),
                10,
                &facts(clock::now(), &never),
            )
            .unwrap()
            .unwrap();
        assert_eq!(got.block, block(24000, 10));
        assert_eq!(got.taken_over.len(), 1);
        assert_eq!(got.taken_over[0].name, "old");
        assert!(got.taken_over[0].clone_exists());
        let names: Vec<String> = m
            .store
            .load()
            .unwrap()
            .into_iter()
            .map(|e| e.name)
            .collect();
        assert_eq!(names, vec!["keep", "new"]);
    }

    #[test]
    fn prune_frees_gone_worktrees_and_deleted_clones_only() {
        let m = Machine::new("prune");
        m.reserve("a", "gone", 10).unwrap();
        m.reserve("a", "here", 10).unwrap();
        m.reserve("b", "orphan", 10).unwrap();
        fs::remove_dir_all(m.worktree("a", "gone")).unwrap();
        fs::remove_dir_all(m.root.join("b")).unwrap();
        let names = |v: Vec<Entry>| v.into_iter().map(|e| e.name).collect::<Vec<_>>();
        // Reserved by a process (pid 0) that no longer runs: prunable at once.
        assert_eq!(names(m.store.prunable().unwrap()), vec!["gone", "orphan"]);
        assert_eq!(names(m.store.prune().unwrap()), vec!["gone", "orphan"]);
        assert_eq!(names(m.store.load().unwrap()), vec!["here"]);
        assert!(m.store.prune().unwrap().is_empty());
    }

    #[test]
    fn no_free_run_is_its_own_answer_and_changes_nothing() {
        let m = Machine::new("exhausted");
        let tiny = range("24000-24019");
        m.reserve_in(&tiny, "a", "one", 10).unwrap();
        m.reserve_in(&tiny, "a", "two", 10).unwrap();
        let before = fs::read(m.store.path()).unwrap();
        let none = m.reserve_in(&tiny, "b", "three", 1).unwrap_err();
        assert_eq!(
            none,
            Exhausted {
                wanted: 1,
                range: tiny
            }
        );
        // Growing a block that cannot grow fails too, and keeps the block it had.
        let grow = m.reserve_in(&tiny, "a", "one", 20).unwrap_err();
        assert_eq!(grow.wanted, 20);
        assert_eq!(fs::read(m.store.path()).unwrap(), before);
        let (line, hint) = error::render(&none.refusal());
        assert!(line.contains("berth.portRange 24000-24019"), "{line}");
        let hint = hint.unwrap();
        assert!(hint.contains("git berth clean"), "{hint}");
        assert!(hint.contains("git config berth.portRange"), "{hint}");
        m.store.free(&m.common_dir("a"), "two").unwrap();
        let got = m.reserve_in(&tiny, "b", "three", 1).unwrap();
        assert_eq!(got.block, block(24010, 1));
    }

    #[test]
    fn a_request_of_no_ports_or_too_many_is_refused() {
        let m = Machine::new("wanted");
        for wanted in [0, 1001] {
            let err = m
                .store
                .reserve(
                    &range("24000-24999"),
                    &m.common_dir("a"),
                    "x",
                    &m.root,
                    wanted,
                )
                .unwrap_err();
            assert!(error::render(&err).0.contains("1 to 1000"));
        }
        assert!(!m.store.path().exists());
    }

    #[test]
    fn a_corrupt_file_is_named_and_left_as_it_was() {
        let m = Machine::new("corrupt");
        fs::create_dir_all(m.root.join("data")).unwrap();
        for text in [
            "[[block]\nname = ",
            "[[block]]\ncommon_dir = \"/a\"\nname = \"x\"\npath = \"/x\"\nfirst = 24000\nunits = 1\ncount = 20\n",
            "version = 9\n",
        ] {
            fs::write(m.store.path(), text).unwrap();
            let err = m
                .store
                .reserve(&range("24000-24999"), &m.common_dir("a"), "x", &m.root, 10)
                .unwrap_err();
            let (line, hint) = error::render(&err);
            assert_eq!(error::kind(&err), error::Kind::Configuration, "{line}");
            assert!(line.starts_with("corrupt port blocks "), "{line}");
            assert!(line.contains("ports.toml"), "{line}");
            if text.starts_with("[[block]\n") {
                assert!(line.contains(": line "), "{line}");
            }
            assert!(hint.unwrap().contains("never rewrites"));
            m.store.free(&m.common_dir("a"), "x").unwrap_err();
            m.store.prune().unwrap_err();
            m.store.list_for(&m.common_dir("a")).unwrap_err();
            assert_eq!(fs::read_to_string(m.store.path()).unwrap(), text);
        }
    }

    #[test]
    fn eight_reservations_at_once_get_eight_distinct_blocks() {
        let m = Machine::new("concurrent");
        let dir = m.root.join("data");
        let paths: Vec<PathBuf> = (0..8).map(|i| m.worktree("a", &format!("w{i}"))).collect();
        let common_dir = m.common_dir("a");
        let blocks: Vec<Block> = std::thread::scope(|scope| {
            let handles: Vec<_> = paths
                .iter()
                .enumerate()
                .map(|(i, path)| {
                    // Each thread its own store, so each lock is its own open file.
                    let store = Store::new(dir.clone());
                    let common_dir = &common_dir;
                    scope.spawn(move || {
                        store
                            .reserve_with(
                                &range("24000-24999"),
                                (common_dir, &format!("w{i}"), path),
                                15,
                                &facts(clock::now(), &never),
                            )
                            .unwrap()
                            .unwrap()
                            .block
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (i, a) in blocks.iter().enumerate() {
            for b in &blocks[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} and {b:?} overlap");
            }
        }
        let mut firsts: Vec<u16> = blocks.iter().map(|b| b.first).collect();
        firsts.sort_unstable();
        assert_eq!(firsts, (0..8).map(|i| 24000 + i * 20).collect::<Vec<_>>());
        assert_eq!(m.store.load().unwrap().len(), 8);
    }
}
