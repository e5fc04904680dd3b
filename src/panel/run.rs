//! The panel's event loop. It blocks on one channel that two producers feed: a thread reading
//! keys from the terminal, and the watcher on the repository's state. A change read again waits
//! for the changes to settle (an `add` writes several files), then the model is read and drawn
//! again; nothing runs on a timer.

use std::fs::File;
use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use crossterm::event::{Event as Term, KeyEvent, KeyEventKind};

use super::actions::{self, Place};
use super::model::{Effect, Model};
use super::view::{self, Look};
use super::{keys, read, term, watch};

/// How long a change waits for the next before the panel reads again, and the longest a burst of
/// changes can hold a reading back.
const SETTLE: Duration = Duration::from_millis(120);
const SETTLE_AT_MOST: Duration = Duration::from_millis(600);

/// What the panel is run with.
pub struct Options {
    /// Where the command was run: every reading stands there.
    pub cwd: PathBuf,
    pub session: Option<String>,
    pub common_dir: PathBuf,
    /// The repository's name, for the heading.
    pub title: String,
    pub look: Look,
    /// Leave once the first full frame is drawn (for the benchmark).
    pub exit_after_first_frame: bool,
}

/// How the panel ended.
#[derive(Debug)]
pub enum Outcome {
    /// ↵ on a worktree: its path, for stdout.
    Path(PathBuf),
    /// ↵ on a worktree whose agent's tab was brought to the front.
    Focused { agent: String, pane: String },
    /// q or esc.
    Left,
}

#[derive(Clone)]
enum Event {
    Key(KeyEvent),
    Redraw,
    Changed,
    /// The terminal can no longer be read.
    Gone(String),
    /// A ship run on its own thread ended: what it said.
    Shipped(actions::Reply),
}

/// Run the panel on `tty` until the person leaves.
pub fn run(options: &Options, tty: File) -> Result<Outcome> {
    let place = Place {
        cwd: &options.cwd,
        session: options.session.as_deref(),
    };
    let mut model = Model::default();
    // Read before taking over the screen, so that a repository that cannot be read is said the
    // way every command says an error.
    model.load(read::read(&options.cwd, options.session.as_deref())?);
    let (events, inbox) = mpsc::channel();
    let mut watch = watch::Watch::start(&options.common_dir, events.clone(), Event::Changed)?;
    let mut screen = term::Screen::open(tty)?;
    draw(&mut screen, &mut model, options)?;
    if options.exit_after_first_frame {
        return Ok(Outcome::Left);
    }
    read_keys(events.clone())?;
    // The worktree a ship is landing, on its own thread; one at a time.
    let mut shipping: Option<String> = None;
    // The first change of a burst, and when to read.
    let mut pending: Option<(Instant, Instant)> = None;
    loop {
        let event = match pending {
            None => inbox.recv().ok(),
            Some((_, at)) => match inbox.recv_timeout(at.saturating_duration_since(Instant::now()))
            {
                Ok(event) => Some(event),
                Err(RecvTimeoutError::Timeout) => {
                    pending = None;
                    refresh(&mut model, options, &mut watch, false);
                    draw(&mut screen, &mut model, options)?;
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => None,
            },
        };
        let Some(event) = event else {
            return Ok(Outcome::Left);
        };
        match event {
            Event::Changed => {
                let now = Instant::now();
                let first = pending.map_or(now, |(first, _)| first);
                pending = Some((first, (now + SETTLE).min(first + SETTLE_AT_MOST)));
                continue;
            }
            Event::Gone(why) => {
                return Err(crate::error::refuse(format!(
                    "the panel lost its terminal: {why}"
                )));
            }
            Event::Redraw => {}
            Event::Shipped(reply) => {
                shipping = None;
                actions::tell(&mut model, reply);
                pending = None;
                refresh(&mut model, options, &mut watch, false);
            }
            Event::Key(key) => {
                let Some(action) = keys::action(model.input(), key) else {
                    continue;
                };
                let effect = model.apply(action);
                if let (Some(name), Effect::Quit | Effect::Switch(_)) = (&shipping, &effect) {
                    // Leaving would end the process mid-landing.
                    model.say(
                        format!("still shipping {name}: leave once it has landed or been refused"),
                        true,
                    );
                    draw(&mut screen, &mut model, options)?;
                    continue;
                }
                match effect {
                    Effect::None => {}
                    Effect::Quit => return Ok(Outcome::Left),
                    Effect::Refresh => {
                        pending = None;
                        refresh(&mut model, options, &mut watch, true);
                    }
                    Effect::Switch(target) => match &target.agent {
                        Some(agent) => match actions::focus(agent) {
                            Ok(true) => {
                                return Ok(Outcome::Focused {
                                    agent: agent.name.clone(),
                                    pane: agent.pane.clone().unwrap_or_default(),
                                });
                            }
                            Ok(false) => return Ok(Outcome::Path(target.path)),
                            Err(err) => model.say(crate::error::render(&err).0, true),
                        },
                        None => return Ok(Outcome::Path(target.path)),
                    },
                    Effect::Run(pending) => actions::run(&mut model, &pending, &place),
                    Effect::Answer(pending, answer) => {
                        actions::answered(&mut model, &pending, &answer, &place);
                        if pending.command == keys::Command::Add {
                            // The new row, read now so that it shows selected.
                            refresh(&mut model, options, &mut watch, false);
                        }
                    }
                    Effect::Confirmed(asked) if asked.command == keys::Command::Ship => {
                        if let Some(name) = &shipping {
                            model.say(format!("still shipping {name}: one ship at a time"), true);
                        } else {
                            // The gate may take a while: the panel keeps drawing meanwhile.
                            model.say(format!("shipping {}…", asked.worktree), false);
                            ship(options, &asked.worktree, events.clone())?;
                            shipping = Some(asked.worktree);
                        }
                    }
                    Effect::Confirmed(pending) => actions::confirmed(&mut model, &pending, &place),
                }
            }
        }
        draw(&mut screen, &mut model, options)?;
    }
}

/// Read the repository again; a reading that fails is said, and the rows shown stay.
fn refresh(model: &mut Model, options: &Options, watch: &mut watch::Watch, asked: bool) {
    match read::read(&options.cwd, options.session.as_deref()) {
        Ok(reading) => {
            model.load(reading);
            if asked {
                model.say("refreshed", false);
            }
        }
        Err(err) => model.say(crate::error::render(&err).0, true),
    }
    watch.follow();
}

fn draw(screen: &mut term::Screen, model: &mut Model, options: &Options) -> Result<()> {
    let size = screen
        .terminal
        .size()
        .context("cannot read the terminal's size")?;
    model.page = view::page(size.height);
    screen
        .terminal
        .draw(|frame| view::draw(frame, model, &options.title, options.look))
        .context("cannot draw on the terminal")?;
    Ok(())
}

/// Ship `name` on a thread of its own, its reply sent to the loop when the gate and the landing
/// are done.
fn ship(options: &Options, name: &str, events: Sender<Event>) -> Result<()> {
    let cwd = options.cwd.clone();
    let session = options.session.clone();
    let name = name.to_owned();
    std::thread::Builder::new()
        .name("panel-ship".to_owned())
        .spawn(move || {
            let place = Place {
                cwd: &cwd,
                session: session.as_deref(),
            };
            let _ = events.send(Event::Shipped(actions::ship(&place, &name)));
        })
        .context("cannot start the ship")?;
    Ok(())
}

/// Read keys (and size changes) on a thread of their own, each sent to the loop; a read blocks
/// until the terminal has something to say.
fn read_keys(events: Sender<Event>) -> Result<()> {
    std::thread::Builder::new()
        .name("panel-keys".to_owned())
        .spawn(move || {
            loop {
                let event = match crossterm::event::read() {
                    Ok(Term::Key(key)) if key.kind != KeyEventKind::Release => Event::Key(key),
                    Ok(Term::Resize(..)) => Event::Redraw,
                    Ok(_) => continue,
                    Err(err) => Event::Gone(err.to_string()),
                };
                let gone = matches!(event, Event::Gone(_));
                if events.send(event).is_err() || gone {
                    return;
                }
            }
        })
        .context("cannot start reading keys")?;
    Ok(())
}
