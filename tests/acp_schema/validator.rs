//! The validator of the JSON Schema keywords the protocol's schemas use (`schemars`'
//! draft 2020-12), for [`super`]: any other keyword is refused, so none is ignored.

use serde_json::Value;

/// A JSON Schema (draft 2020-12) as `schemars` writes the protocol's types, with its
/// `$defs`, and a validator of the keywords such schemas use. A schema with any other
/// assertion keyword is refused when built: no constraint is ever skipped.
/// Annotations (`description`, `title`, `default`, `format`, `discriminator`, `x-*`)
/// assert nothing, as in draft 2020-12 by default.
pub(super) struct Validator {
    root: Value,
}

/// Keywords that only annotate.
const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$defs",
    "title",
    "description",
    "default",
    "examples",
    "format",
    "deprecated",
    "readOnly",
    "writeOnly",
    "discriminator",
];

impl Validator {
    pub(super) fn new(root: Value) -> Result<Validator, String> {
        audit(&root, "#")?;
        if let Some(defs) = root.get("$defs").and_then(Value::as_object) {
            for (name, def) in defs {
                audit(def, &format!("#/$defs/{name}"))?;
            }
        }
        Ok(Validator { root })
    }

    /// Where `instance` fails the schema, each as `PATH: WHY`.
    pub(super) fn errors(&self, instance: &Value) -> Vec<String> {
        let mut found = Vec::new();
        self.check(&self.root, instance, "", &mut found);
        found
    }

    pub(super) fn is_valid(&self, instance: &Value) -> bool {
        self.errors(instance).is_empty()
    }

    fn check(&self, schema: &Value, value: &Value, path: &str, found: &mut Vec<String>) {
        let schema = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => return found.push(format!("{path}: nothing is allowed here")),
            Value::Object(schema) => schema,
            _ => return found.push(format!("{path}: a schema that is not one")),
        };
        let fail = |found: &mut Vec<String>, why: String| found.push(format!("{path}: {why}"));
        for (keyword, arg) in schema {
            match keyword.as_str() {
                "$ref" => match arg
                    .as_str()
                    .and_then(|r| r.strip_prefix('#'))
                    .and_then(|pointer| self.root.pointer(pointer))
                {
                    Some(target) => self.check(target, value, path, found),
                    None => fail(found, format!("unresolved $ref {arg}")),
                },
                "type" => {
                    let types: Vec<&str> = match arg {
                        Value::Array(types) => types.iter().filter_map(Value::as_str).collect(),
                        other => other.as_str().into_iter().collect(),
                    };
                    if !types.iter().any(|t| is_type(value, t)) {
                        fail(found, format!("{} is not of type {arg}", brief(value)));
                    }
                }
                "properties" => {
                    if let (Some(object), Some(properties)) = (value.as_object(), arg.as_object()) {
                        for (name, property) in properties {
                            if let Some(v) = object.get(name) {
                                self.check(property, v, &format!("{path}/{name}"), found);
                            }
                        }
                    }
                }
                "required" => {
                    if let Some(object) = value.as_object() {
                        for name in arg.as_array().into_iter().flatten().filter_map(Value::as_str) {
                            if !object.contains_key(name) {
                                fail(found, format!("`{name}` is required"));
                            }
                        }
                    }
                }
                "additionalProperties" => {
                    if let Some(object) = value.as_object() {
                        let known = schema.get("properties").and_then(Value::as_object);
                        for (name, v) in object {
                            if !known.is_some_and(|k| k.contains_key(name)) {
                                self.check(arg, v, &format!("{path}/{name}"), found);
                            }
                        }
                    }
                }
                "items" => {
                    for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                        self.check(arg, item, &format!("{path}/{i}"), found);
                    }
                }
                "allOf" => {
                    for sub in arg.as_array().into_iter().flatten() {
                        self.check(sub, value, path, found);
                    }
                }
                "anyOf" | "oneOf" => {
                    let branches: Vec<Vec<String>> = arg
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|sub| {
                            let mut errors = Vec::new();
                            self.check(sub, value, path, &mut errors);
                            errors
                        })
                        .collect();
                    let passed = branches.iter().filter(|e| e.is_empty()).count();
                    if passed == 0 {
                        // The branch that came closest says why.
                        let closest = branches
                            .iter()
                            .min_by_key(|e| e.len())
                            .cloned()
                            .unwrap_or_default();
                        fail(
                            found,
                            format!(
                                "{} matches none of the {} choices of {keyword} (closest: {})",
                                brief(value),
                                branches.len(),
                                closest.join("; ")
                            ),
                        );
                    } else if passed > 1 && keyword == "oneOf" {
                        fail(
                            found,
                            format!("{} matches {passed} choices of oneOf", brief(value)),
                        );
                    }
                }
                "not" => {
                    let mut errors = Vec::new();
                    self.check(arg, value, path, &mut errors);
                    if errors.is_empty() {
                        fail(found, format!("{} matches a schema it must not", brief(value)));
                    }
                }
                "const" if !json_eq(value, arg) => {
                    fail(found, format!("{} is not {arg}", brief(value)));
                }
                "enum" if !arg.as_array().into_iter().flatten().any(|v| json_eq(value, v)) => {
                    fail(found, format!("{} is not one of {arg}", brief(value)));
                }
                "minLength" | "maxLength" => {
                    if let (Some(text), Some(limit)) = (value.as_str(), arg.as_u64()) {
                        let length = text.chars().count() as u64;
                        if (keyword == "minLength" && length < limit)
                            || (keyword == "maxLength" && length > limit)
                        {
                            fail(found, format!("{} is beyond the {keyword} {arg}", brief(value)));
                        }
                    }
                }
                "minItems" | "maxItems" => {
                    if let (Some(items), Some(limit)) = (value.as_array(), arg.as_u64()) {
                        let length = items.len() as u64;
                        if (keyword == "minItems" && length < limit)
                            || (keyword == "maxItems" && length > limit)
                        {
                            fail(
                                found,
                                format!("an array of {length} is beyond the {keyword} {arg}"),
                            );
                        }
                    }
                }
                "minimum" | "maximum" => {
                    if let (Some(v), Some(limit)) = (value.as_f64(), arg.as_f64()) {
                        if (keyword == "minimum" && v < limit) || (keyword == "maximum" && v > limit) {
                            fail(found, format!("{value} is beyond the {keyword} {arg}"));
                        }
                    }
                }
                // Only `true` (nothing more to check) passes `audit`.
                "unevaluatedProperties" => {}
                _ => {} // annotations (`audit` refused any other keyword), and a const or enum that held
            }
        }
    }
}

/// Refuses a schema with a keyword [`Validator::check`] does not assert.
fn audit(schema: &Value, at: &str) -> Result<(), String> {
    let Value::Object(schema) = schema else {
        return match schema {
            Value::Bool(_) => Ok(()),
            _ => Err(format!("{at}: not a schema")),
        };
    };
    for (keyword, arg) in schema {
        let here = format!("{at}/{keyword}");
        match keyword.as_str() {
            "properties" => {
                for (name, sub) in arg.as_object().ok_or(format!("{here}: not an object"))? {
                    audit(sub, &format!("{here}/{name}"))?;
                }
            }
            "additionalProperties" | "items" | "not" => audit(arg, &here)?,
            "allOf" | "anyOf" | "oneOf" => {
                for (i, sub) in arg
                    .as_array()
                    .ok_or(format!("{here}: not a list"))?
                    .iter()
                    .enumerate()
                {
                    audit(sub, &format!("{here}/{i}"))?;
                }
            }
            "$ref" | "type" | "required" | "const" | "enum" | "minimum" | "maximum" | "minLength"
            | "maxLength" | "minItems" | "maxItems" => {}
            "unevaluatedProperties" if *arg == Value::Bool(true) => {}
            k if k.starts_with("x-") || ANNOTATIONS.contains(&k) => {}
            _ => return Err(format!("{here}: a keyword this validator does not check")),
        }
    }
    Ok(())
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        // 1.0 is an integer to JSON Schema.
        "integer" => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
        _ => false,
    }
}

/// Equality as JSON Schema has it: `1` and `1.0` are equal.
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
            (Some(x), Some(y), _, _) => x == y,
            (_, _, Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// A value named briefly in an error.
fn brief(value: &Value) -> String {
    match value {
        Value::Object(_) => "an object".to_owned(),
        Value::Array(_) => "an array".to_owned(),
        Value::String(s) if s.len() > 40 => format!("a string of {} bytes", s.len()),
        other => other.to_string(),
    }
}
