//! A final message that follows `--output-schema`: the real CLI sends the schema to the
//! model as a strict `json_schema` format, and the model's answer (the last
//! `agent_message`'s `text`) is a JSON document of that shape. The stand-in makes one:
//! the simplest value each schema accepts.
//!
//! Handled: `type` (`object`, `string`, `number`, `integer`, `boolean`, `array`,
//! `null`, or a list of them: the first), `properties` (every one, in the schema's
//! order: a strict schema requires them all), `items`, `minItems`, `enum`, `const`,
//! `default`, `anyOf`/`oneOf` (the first), `minimum`, `minLength`, `$ref` to
//! `#/$defs/..` and `#/definitions/..`. Anything else is taken as a string.

use serde_json::{json, Map, Value};

/// How deep `$ref`s and nesting are followed before a value is cut short (a recursive
/// schema ends in `null`).
const MAX_DEPTH: usize = 32;

/// The JSON value the model answers for `schema`.
pub fn value_for(schema: &Value) -> Value {
    make(schema, schema, 0)
}

/// The final message's text for `schema`: [`value_for`], compact.
pub fn message_for(schema: &Value) -> String {
    value_for(schema).to_string()
}

fn make(schema: &Value, root: &Value, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    let Some(object) = schema.as_object() else {
        // `true` (anything) and `false` (nothing): a string either way.
        return json!("example");
    };
    if let Some(constant) = object.get("const") {
        return constant.clone();
    }
    if let Some(first) = object
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(default) = object.get("default") {
        return default.clone();
    }
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        let target = reference
            .strip_prefix('#')
            .and_then(|pointer| root.pointer(pointer));
        return target.map_or(Value::Null, |t| make(t, root, depth + 1));
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = object.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
            return make(first, root, depth + 1);
        }
    }
    let kind = match object.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds.iter().find_map(Value::as_str).unwrap_or("string"),
        _ if object.contains_key("properties") => "object",
        _ if object.contains_key("items") => "array",
        _ => "string",
    };
    let number = |key: &str| object.get(key).and_then(Value::as_f64);
    match kind {
        "object" => {
            let mut out = Map::new();
            if let Some(properties) = object.get("properties").and_then(Value::as_object) {
                for (name, property) in properties {
                    out.insert(name.clone(), make(property, root, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let item = object.get("items").cloned().unwrap_or(json!({}));
            let count = object
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .clamp(1, 8);
            Value::Array((0..count).map(|_| make(&item, root, depth + 1)).collect())
        }
        "integer" => {
            let low = number("minimum").map_or(1, |m| m.ceil() as i64);
            json!(low)
        }
        "number" => json!(number("minimum").unwrap_or(1.5)),
        "boolean" => json!(true),
        "null" => Value::Null,
        _ => {
            let min = object.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let mut text = String::from("example");
            while text.len() < min {
                text.push('x');
            }
            json!(text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_strict_object_gets_every_property_in_order() {
        let schema = json!({"type": "object", "properties": {
            "summary": {"type": "string"},
            "status": {"type": "string", "enum": ["ok", "action_required"]},
            "count": {"type": "integer", "minimum": 3},
            "score": {"type": "number"},
            "done": {"type": "boolean"},
            "files": {"type": "array", "items": {"type": "string"}},
            "owner": {"anyOf": [{"$ref": "#/$defs/person"}, {"type": "null"}]}
        }, "required": ["summary", "status"], "additionalProperties": false,
        "$defs": {"person": {"type": "object", "properties": {"name": {"type": "string", "minLength": 9}}}}});
        assert_eq!(
            message_for(&schema),
            r#"{"summary":"example","status":"ok","count":3,"score":1.5,"done":true,"files":["example"],"owner":{"name":"examplexx"}}"#
        );
    }

    #[test]
    fn a_recursive_schema_ends() {
        let schema = json!({"type": "object", "properties": {"next": {"$ref": "#"}}});
        let value = value_for(&schema);
        assert!(value.pointer("/next/next/next").is_some());
        assert_eq!(value_for(&json!({"type": ["integer", "null"]})), json!(1));
        assert_eq!(value_for(&json!(true)), json!("example"));
    }
}
