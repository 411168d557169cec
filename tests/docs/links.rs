//! The links of README.md and the guide resolve, the book lists every page, and the
//! pages with Rust examples are compiled as doctests.
//!
//! The book is not built here: mdBook from crates.io is a few minutes of compiling on
//! the project's 2-core machines for every fresh clone CI starts from. What a build
//! would find broken (a page SUMMARY.md names that is not there, a link to nothing) is
//! checked instead.

use std::path::Path;

use super::{blocks, pages, Page};
use crate::support::root;

/// The text of a page outside its fenced blocks and inline code, with line numbers.
fn prose(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Inline code spans hold no links.
        let kept: String = line
            .split('`')
            .enumerate()
            .filter(|(k, _)| k % 2 == 0)
            .map(|(_, part)| part)
            .collect::<Vec<_>>()
            .join(" ");
        lines.push((i + 1, kept));
    }
    lines
}

/// The targets of the page's Markdown links (`[text](target)`, images too).
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (line, kept) in prose(text) {
        let mut rest = kept.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = rest[..end].split_whitespace().next().unwrap_or("");
            found.push((line, target.to_owned()));
            rest = &rest[end..];
        }
    }
    found
}

/// The anchors a page's headings make, as GitHub and mdBook make them.
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut made = Vec::new();
    for (_, line) in prose_with_code(text) {
        let Some(heading) = line.strip_prefix('#') else {
            continue;
        };
        let title = heading.trim_start_matches('#');
        if !title.starts_with(' ') {
            continue;
        }
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = seen.iter().filter(|s| **s == slug).count();
        made.push(if n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        seen.push(slug);
    }
    made
}

/// The lines outside fenced blocks, inline code kept (a heading's code is in its
/// anchor).
fn prose_with_code(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push((i + 1, line.to_owned()));
        }
    }
    lines
}

/// What is wrong with the links of a page.
fn broken(page: &Page) -> Vec<String> {
    let dir = root().join(&page.path);
    let dir = dir.parent().expect("a page's folder");
    let mut problems = Vec::new();
    for (line, target) in links(&page.text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
        let at = format!("{}:{line}: `{target}`", page.path);
        let path = if file.is_empty() {
            root().join(&page.path)
        } else {
            dir.join(file)
        };
        if !path.exists() {
            problems.push(format!("{at}: {} does not exist", path.display()));
            continue;
        }
        if !anchor.is_empty() && path.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&path).expect("reads the linked page");
            if !anchors(&text).iter().any(|a| a == anchor) {
                problems.push(format!("{at}: no heading makes #{anchor}"));
            }
        }
    }
    problems
}

#[test]
fn every_relative_link_of_the_readme_and_the_guide_resolves() {
    let pages = pages();
    let problems: Vec<String> = pages.iter().flat_map(broken).collect();
    let count: usize = pages.iter().map(|p| links(&p.text).len()).sum();
    assert!(count > 50, "only {count} links found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_book_lists_every_page_of_the_guide() {
    let docs = root().join("docs");
    let book = std::fs::read_to_string(docs.join("book.toml")).expect("docs/book.toml");
    assert!(book.contains("src = \".\""), "the book's pages are docs/ itself");
    let summary = std::fs::read_to_string(docs.join("SUMMARY.md")).expect("docs/SUMMARY.md");
    let listed: Vec<String> = links(&summary).into_iter().map(|(_, t)| t).collect();
    for page in pages().iter().filter(|p| p.path.starts_with("docs/")) {
        let name = page.path.trim_start_matches("docs/");
        if name == "SUMMARY.md" {
            continue;
        }
        assert!(
            listed.iter().any(|l| l == name),
            "docs/SUMMARY.md does not list {name}: add a line `- [Title]({name})` where it belongs"
        );
    }
}

#[test]
fn the_pages_with_rust_examples_are_doctests() {
    let lib = std::fs::read_to_string(root().join("harness/src/lib.rs")).expect("lib.rs");
    for page in pages() {
        let compiled = blocks(&page.text)
            .iter()
            .any(|b| b.lang.starts_with("rust") && !b.lang.contains("ignore") && !b.lines.is_empty());
        let included = lib.contains(&format!("include_str!(\"../../{}\")", page.path));
        assert!(
            !compiled || included,
            "{} has Rust examples: include it in harness/src/lib.rs's doctests",
            page.path
        );
    }
}

#[test]
fn links_and_anchors_are_read_as_markdown_makes_them() {
    let text = "# A title\n\n## `mock-agent test` and more\n\nSee [x](a.md#b) and \
                `[not](a link)`, ![pic](p.png).\n```sh\n# not a heading [c](d)\n```\n## A title\n";
    let found: Vec<String> = links(text).into_iter().map(|(_, t)| t).collect();
    assert_eq!(found, vec!["a.md#b", "p.png"]);
    assert_eq!(
        anchors(text),
        vec!["a-title", "mock-agent-test-and-more", "a-title-1"]
    );
    let page = Page {
        path: "README.md".into(),
        text: "[a](docs/nothing.md) [b](#nowhere) [c](docs/README.md#status)".into(),
    };
    let problems = broken(&page);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(Path::new(&root()).join("docs/README.md").exists());
}
