//! The dimension tables: every number the scoring code combines signals with.
//!
//! `core/models/dimensions.tsv` (written by `scripts/train-scorer`) has one line per
//! parameter: `dimension, scope, name, value, source, reason`. `source` is `fitted`
//! (learned from labels; the reason names them) or `set` (no labels yet; the reason
//! says why the value is what it is). Each dimension's code declares the names it
//! reads ([`crate::params!`]); a name the code reads that the table lacks, or a name the
//! table has that no code reads, is an error when the table loads, so the two cannot
//! drift apart.

use super::linear::ModelError;

/// Where a parameter's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Learned from labels by `scripts/train-scorer`.
    Fitted,
    /// Set by design where no labels exist yet.
    Set,
}

/// One parameter of the tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The dimension (`frustration_buildup`, …) or shared group it belongs to.
    pub dimension: &'static str,
    /// `turn`, `conversation`, or another scope the dimension's code names.
    pub scope: &'static str,
    /// The parameter's name.
    pub name: &'static str,
    /// Its value.
    pub value: f64,
    /// Fitted or set.
    pub source: Source,
    /// The labels it was fitted to, or why it is set to this value.
    pub reason: &'static str,
}

/// Every parameter, in file order.
#[derive(Debug)]
pub struct Tables {
    entries: Vec<Entry>,
    /// Per entry: whether some code read it.
    used: std::sync::Mutex<Vec<bool>>,
}

impl Tables {
    /// Parses the tables file.
    pub fn parse(source: &'static str) -> Result<Tables, ModelError> {
        let mut entries: Vec<Entry> = Vec::new();
        for (n, line) in source.lines().enumerate() {
            let n = n + 1;
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let cols: Vec<&'static str> = line.split('\t').collect();
            let [dimension, scope, name, value, src, reason] = cols[..] else {
                return Err(ModelError {
                    line: n,
                    message: "six tab-separated columns expected".into(),
                });
            };
            let value: f64 =
                value
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite())
                    .ok_or(ModelError {
                        line: n,
                        message: format!("`{value}` is not a number"),
                    })?;
            let source = match src {
                "fitted" => Source::Fitted,
                "set" => Source::Set,
                _ => {
                    return Err(ModelError {
                        line: n,
                        message: format!("source `{src}` is neither fitted nor set"),
                    });
                }
            };
            if reason.trim().is_empty() {
                return Err(ModelError {
                    line: n,
                    message: "every parameter needs a reason".into(),
                });
            }
            if entries
                .iter()
                .any(|e| (e.dimension, e.scope, e.name) == (dimension, scope, name))
            {
                return Err(ModelError {
                    line: n,
                    message: format!("{dimension} {scope} {name} given twice"),
                });
            }
            entries.push(Entry {
                dimension,
                scope,
                name,
                value,
                source,
                reason,
            });
        }
        let used = std::sync::Mutex::new(vec![false; entries.len()]);
        Ok(Tables { entries, used })
    }

    /// Every entry, in file order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The value of one parameter, marking it read.
    pub fn value(&self, dimension: &str, scope: &str, name: &str) -> Result<f64, ModelError> {
        let i = self
            .entries
            .iter()
            .position(|e| (e.dimension, e.scope, e.name) == (dimension, scope, name))
            .ok_or_else(|| ModelError {
                line: 0,
                message: format!("{dimension} {scope} {name} missing from the tables"),
            })?;
        if let Ok(mut used) = self.used.lock() {
            used[i] = true;
        }
        Ok(self.entries[i].value)
    }

    /// Fails when an entry was never read: the table holds a number no code uses.
    pub fn check_all_read(&self) -> Result<(), ModelError> {
        let used = self.used.lock().map_err(|_| ModelError {
            line: 0,
            message: "table bookkeeping poisoned".into(),
        })?;
        match used.iter().position(|u| !u) {
            Some(i) => {
                let e = &self.entries[i];
                Err(ModelError {
                    line: 0,
                    message: format!(
                        "{} {} {} is in the tables but no code reads it",
                        e.dimension, e.scope, e.name
                    ),
                })
            }
            None => Ok(()),
        }
    }
}

/// A struct of named `f64` parameters read from one `(dimension, scope)` of the tables.
#[macro_export]
macro_rules! params {
    ($(#[$m:meta])* pub struct $name:ident ($dim:literal, $scope:literal) {
        $($(#[$fm:meta])* $field:ident),* $(,)?
    }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $($(#[$fm])* pub $field: f64,)*
        }
        impl $name {
            /// Reads every field from the tables.
            pub fn read(t: &$crate::model::tables::Tables)
                -> Result<$name, $crate::model::linear::ModelError> {
                Ok($name { $($field: t.value($dim, $scope, stringify!($field))?,)* })
            }
        }
    };
}

/// A learned dimension on one turn: a logistic model over named inputs with an arc
/// carried from turn to turn and a calibration.
///
/// `impulse = Σ wᵢ·xᵢ`; `carried = carry_rate · level of the previous turn`;
/// `logit = intercept + impulse + carry_weight · carried`;
/// `level = max(0, Σ wᵢ·(xᵢ − centerᵢ) + carry_weight · carried)`;
/// `score = σ(platt_a · logit + platt_b)`.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearDim {
    /// Intercept.
    pub intercept: f64,
    /// Weight of each input, in the order of the input names given to
    /// [`LinearDim::read`] (0 for an input the dimension does not read).
    pub weights: Vec<f64>,
    /// What a typical turn shows of each input (the training mean), in the order of
    /// `weights`: only what a turn pushes above it is carried (0 when not given).
    pub centers: Vec<f64>,
    /// Share of the previous turn's level carried over (0: no arc).
    pub carry_rate: f64,
    /// Weight of the carried level in the logit.
    pub carry_weight: f64,
    /// Whether the value is a calibrated probability `σ(platt_a·logit + platt_b)`;
    /// when not (a roll-up set by design), the value is the linear sum itself,
    /// clamped to [0, 1].
    pub calibrated: bool,
    /// Calibration slope.
    pub platt_a: f64,
    /// Calibration intercept.
    pub platt_b: f64,
}

impl LinearDim {
    /// Reads `(dimension, scope)`: `intercept`, `carry_rate`, `carry_weight`,
    /// `calibrated`, `platt_a`, `platt_b`, and an `input:NAME` weight for each input the dimension
    /// reads. `inputs` are every input name the code can compute; an `input:` entry
    /// naming anything else is an error.
    pub fn read(
        t: &Tables,
        dimension: &str,
        scope: &str,
        inputs: &[&str],
    ) -> Result<LinearDim, ModelError> {
        let v = |name: &str| t.value(dimension, scope, name);
        let mut weights = vec![0.0; inputs.len()];
        let mut centers = vec![0.0; inputs.len()];
        for e in t.entries() {
            if (e.dimension, e.scope) != (dimension, scope) {
                continue;
            }
            for (prefix, into) in [("input:", &mut weights), ("center:", &mut centers)] {
                if let Some(name) = e.name.strip_prefix(prefix) {
                    let i = inputs
                        .iter()
                        .position(|n| *n == name)
                        .ok_or_else(|| ModelError {
                            line: 0,
                            message: format!("{dimension} {scope}: unknown input `{name}`"),
                        })?;
                    into[i] = v(e.name)?;
                }
            }
        }
        Ok(LinearDim {
            intercept: v("intercept")?,
            weights,
            centers,
            carry_rate: v("carry_rate")?,
            carry_weight: v("carry_weight")?,
            calibrated: v("calibrated")? != 0.0,
            platt_a: v("platt_a")?,
            platt_b: v("platt_b")?,
        })
    }

    /// The value for a linear sum (a logit when the dimension is calibrated).
    pub fn calibrated(&self, logit: f64) -> f64 {
        if self.calibrated {
            super::linear::sigmoid(self.platt_a * logit + self.platt_b)
        } else {
            logit.clamp(0.0, 1.0)
        }
    }

    /// The calibrated probability with no input and nothing carried.
    pub fn baseline(&self) -> f64 {
        self.calibrated(self.intercept)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOY: &str = "# d\tscope\tname\tvalue\tsource\treason\n\
        toy\tturn\tintercept\t-2\tfitted\tlabels x\n\
        toy\tturn\tinput:a\t1.5\tfitted\tlabels x\n\
        toy\tturn\tcarry_rate\t0.5\tfitted\tgrid\n\
        toy\tturn\tcarry_weight\t1\tfitted\tlabels x\n\
        toy\tturn\tcalibrated\t1\tfitted\tdev\n\
        toy\tturn\tplatt_a\t1\tfitted\tdev\n\
        toy\tturn\tplatt_b\t0\tfitted\tdev\n\
        toy\tturn\tknob\t0.25\tset\tno labels\n";

    params! {
        /// Toy parameters.
        pub struct Toy ("toy", "turn") {
            /// A knob.
            knob,
        }
    }

    #[test]
    fn reads_linear_dimensions_and_params_and_finds_unread_entries() {
        let t = Tables::parse(TOY).unwrap();
        let d = LinearDim::read(&t, "toy", "turn", &["b", "a"]).unwrap();
        assert_eq!(d.weights, [0.0, 1.5]);
        assert_eq!(d.intercept, -2.0);
        assert!((d.baseline() - 1.0 / (1.0 + 2f64.exp())).abs() < 1e-12);
        let e = t.check_all_read().unwrap_err();
        assert!(e.message.contains("toy turn knob"), "{}", e.message);
        assert_eq!(Toy::read(&t).unwrap().knob, 0.25);
        assert!(t.check_all_read().is_ok());
        // Each entry keeps its source: the fitted weights and the knob set by design.
        let source = |name: &str| {
            t.entries()
                .iter()
                .find(|e| e.name == name)
                .map(|e| (e.source, e.reason))
                .unwrap()
        };
        assert_eq!(source("input:a"), (Source::Fitted, "labels x"));
        assert_eq!(source("knob"), (Source::Set, "no labels"));
        assert_eq!(t.entries().len(), 8);
    }

    #[test]
    fn missing_and_malformed_entries_are_errors() {
        let t = Tables::parse(TOY).unwrap();
        let e = LinearDim::read(&t, "toy", "turn", &["b"]).unwrap_err();
        assert_eq!(e.message, "toy turn: unknown input `a`");
        let e = LinearDim::read(&t, "toy", "conversation", &["a"]).unwrap_err();
        assert_eq!(
            e.message,
            "toy conversation intercept missing from the tables"
        );
        let e = Tables::parse("a\tb\tc\tx\tfitted\tr\n").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (1, "`x` is not a number"));
        let e = Tables::parse("a\tb\tc\t1\tguessed\tr\n").unwrap_err();
        assert!(e.message.contains("neither fitted nor set"));
        let e = Tables::parse("a\tb\tc\t1\tset\t \n").unwrap_err();
        assert_eq!(e.message, "every parameter needs a reason");
        let e = Tables::parse("a\tb\tc\t1\tset\tr\na\tb\tc\t2\tset\tr\n").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
