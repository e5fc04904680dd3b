//! Filling berth's own texts (the worktree norms, the judge's prompt): each `{key}` placeholder
//! replaced once, left to right. Pure.

/// `template` with each placeholder of `values` (written with its braces, `{name}`) filled once,
/// left to right: a value that holds a placeholder is not filled again, and braces that name no
/// placeholder (JSON shown in the text) stay as they are.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(key, _)| rest.starts_with(key)) {
            Some((key, value)) => {
                out.push_str(value);
                rest = &rest[key.len()..];
            }
            None => {
                out.push('{');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::fill;

    #[test]
    fn each_placeholder_is_filled_once_and_other_braces_stay() {
        let values = [("{a}", "{b}"), ("{b}", "B")];
        assert_eq!(
            fill("x {a} {b} {\"c\": 1} {", &values),
            "x {b} B {\"c\": 1} {"
        );
    }
}
