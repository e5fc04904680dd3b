//! The values `${key}` reads, and where each came from: a declared input resolves `--var` first,
//! then its `infer`, then its `default`; a `vars` entry is overridden by `--var`; `${fleet_dir}` is
//! the caller's; `${repo}` with no input or var of that name is inferred like `infer = "repo"`;
//! `${model}` is bound only while a pipeline stage that fans out over `models` is resolved. A
//! sub-pipeline sees its parent's values first, then its own inputs and vars for the rest.
//! Pure: inferring is the caller's [`Infer`], asked at most once per source.

use std::collections::HashMap;

use super::error::ManifestError;
use super::interpolate::is_var_name;
use super::schema::{InferFrom, Input, RESERVED, Var};
use super::walk::{index, nearest};

/// How the caller infers a value: the checkout's origin (after `--repo`) or the current branch's
/// pull request. `Err` says why it could not, as a person reads it (`gh is not installed`).
pub trait Infer {
    fn infer(&self, from: InferFrom) -> Result<String, String>;
}

impl<F: Fn(InferFrom) -> Result<String, String>> Infer for F {
    fn infer(&self, from: InferFrom) -> Result<String, String> {
        self(from)
    }
}

/// Where a bound value came from, as `--dry-run` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundFrom {
    /// `--var key=value`.
    Cli,
    /// The manifest's `vars`.
    Vars,
    Inferred(InferFrom),
    /// The input's `default`.
    Default,
    /// Set by berth (`${fleet_dir}`, and `${model}` in a stage that fans out over models).
    Berth,
}

impl std::fmt::Display for BoundFrom {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BoundFrom::Cli => f.write_str("--var"),
            BoundFrom::Vars => f.write_str("vars"),
            BoundFrom::Inferred(from) => write!(f, "inferred from {}", from.describe()),
            BoundFrom::Default => f.write_str("default"),
            BoundFrom::Berth => f.write_str("berth"),
        }
    }
}

/// A key `${key}` can read, its value, and where that came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub key: String,
    pub value: String,
    pub from: BoundFrom,
}

/// Every value of a fleet, and why each key without one has none.
pub struct Bindings<'a> {
    bound: Vec<Binding>,
    /// Declared inputs that resolved to nothing, with the reason.
    unset: HashMap<String, String>,
    infer: &'a dyn Infer,
    /// Where `${model}` has no value, as its error says it: `not in a fleet`.
    model_unset: &'static str,
}

/// Resolve the inputs and vars of a manifest against `--var` (`cli`, later ones winning), with
/// `${fleet_dir}` bound to `fleet_dir`. A required input with no value is an error at the input.
/// `model_unset` ends the error of a `${model}` outside a fan-out (`not in a fleet`).
pub fn bind<'a>(
    inputs: &[Input],
    vars: &[Var],
    model_unset: &'static str,
    cli: &[(String, String)],
    fleet_dir: &str,
    infer: &'a dyn Infer,
) -> Result<Bindings<'a>, ManifestError> {
    let mut given: HashMap<&str, &str> = HashMap::new();
    for (key, value) in cli {
        let path = format!("--var {key}");
        if !is_var_name(key) {
            return Err(ManifestError::cli(
                &path,
                "not a name ${name} can read: use letters, digits, '_' and '-', starting with a \
                 letter or '_'",
            ));
        }
        if let Some((_, why)) = RESERVED.iter().find(|(reserved, _)| reserved == key) {
            return Err(ManifestError::cli(&path, format!("reserved: {why}")));
        }
        given.insert(key, value);
    }
    let mut bindings = Bindings {
        bound: Vec::new(),
        unset: HashMap::new(),
        infer,
        model_unset,
    };
    for input in inputs {
        let key = input.name.value.as_str();
        if let Some(value) = given.remove(key) {
            bindings.bind(key, value, BoundFrom::Cli);
            continue;
        }
        bindings.bind_input(input)?;
    }
    for var in vars {
        let key = var.name.value.as_str();
        match given.remove(key) {
            Some(value) => bindings.bind(key, value, BoundFrom::Cli),
            None => bindings.bind(key, &var.value.value, BoundFrom::Vars),
        }
    }
    // What `--var` gives beyond the manifest's names, in the order given.
    for (key, _) in cli {
        if let Some(value) = given.remove(key.as_str()) {
            bindings.bind(key, value, BoundFrom::Cli);
        }
    }
    bindings.bind("fleet_dir", fleet_dir, BoundFrom::Berth);
    Ok(bindings)
}

impl<'a> Bindings<'a> {
    /// The values a sub-pipeline with `inputs` and `vars` reads: every value of its parent (so
    /// `--var` and the parent's vars win), then its own inputs and vars for the keys the parent
    /// has no value for.
    pub fn nested(&self, inputs: &[Input], vars: &[Var]) -> Result<Bindings<'a>, ManifestError> {
        let mut bindings = Bindings {
            bound: self.bound.clone(),
            unset: self.unset.clone(),
            infer: self.infer,
            model_unset: self.model_unset,
        };
        for input in inputs {
            if !bindings.has(&input.name.value) {
                bindings.unset.remove(&input.name.value);
                bindings.bind_input(input)?;
            }
        }
        for var in vars {
            if !bindings.has(&var.name.value) {
                bindings.unset.remove(&var.name.value);
                bindings.bind(&var.name.value, &var.value.value, BoundFrom::Vars);
            }
        }
        Ok(bindings)
    }

    fn has(&self, key: &str) -> bool {
        self.bound.iter().any(|b| b.key == key)
    }

    /// Bind a declared input not given with `--var`: inferred, else its default, else unset (an
    /// error now when it is required, else when it is used).
    fn bind_input(&mut self, input: &Input) -> Result<(), ManifestError> {
        let key = input.name.value.as_str();
        let infer = self.infer;
        let bindings = self;
        let inferred = input
            .infer
            .as_ref()
            .map(|from| (from.value, infer.infer(from.value)));
        if let Some((from, Ok(value))) = &inferred {
            bindings.bind(key, value, BoundFrom::Inferred(*from));
            return Ok(());
        }
        if let Some(default) = &input.default {
            bindings.bind(key, &default.value, BoundFrom::Default);
            return Ok(());
        }
        let mut why = format!("not given with --var {key}=<value>");
        if let Some((from, Err(reason))) = &inferred {
            why.push_str(&format!(
                ", not inferred from {} ({reason})",
                from.describe()
            ));
        }
        why.push_str(", and it has no default");
        if input.required {
            return Err(ManifestError::at(
                &input.at,
                &index("inputs", input.index),
                format!("required input '{key}' has no value: {why}"),
            ));
        }
        bindings
            .unset
            .insert(key.to_owned(), format!("input '{key}' has no value: {why}"));
        Ok(())
    }
}

impl Bindings<'_> {
    /// `${model}` is `model` until [`Bindings::unset_model`]: while a fanned-out stage's copy for
    /// that model is resolved.
    pub fn set_model(&mut self, model: &str) {
        self.unset_model();
        self.bind("model", model, BoundFrom::Berth);
    }

    pub fn unset_model(&mut self) {
        self.bound.retain(|b| b.key != "model");
    }

    fn bind(&mut self, key: &str, value: &str, from: BoundFrom) {
        self.bound.push(Binding {
            key: key.to_owned(),
            value: value.to_owned(),
            from,
        });
    }

    /// The value of `${key}`, or why it has none.
    pub fn lookup(&mut self, key: &str) -> Result<String, String> {
        if let Some(binding) = self.bound.iter().find(|b| b.key == key) {
            return Ok(binding.value.clone());
        }
        if let Some(why) = self.unset.get(key) {
            return Err(why.clone());
        }
        if let Some((_, why)) = RESERVED.iter().find(|(reserved, _)| *reserved == key) {
            return Err(format!("{why}, {}", self.model_unset));
        }
        if key == InferFrom::Repo.name() {
            // The seed's `${repo}` works with no input declared: the checkout's origin.
            return match self.infer.infer(InferFrom::Repo) {
                Ok(value) => {
                    self.bind(key, &value, BoundFrom::Inferred(InferFrom::Repo));
                    Ok(value)
                }
                Err(reason) => Err(format!(
                    "no var or input is named 'repo', and it was not inferred from {} ({reason})",
                    InferFrom::Repo.describe()
                )),
            };
        }
        let mut why = format!("no var or input is named '{key}'");
        if let Some(near) = nearest(key, self.bound.iter().map(|b| b.key.as_str())) {
            why.push_str(&format!("; did you mean '{near}'?"));
        }
        Err(why)
    }

    /// Every bound value, in the order: inputs, vars, other `--var`s, berth's, then any inferred
    /// on use (`${repo}`).
    pub fn into_list(self) -> Vec<Binding> {
        self.bound
    }
}
