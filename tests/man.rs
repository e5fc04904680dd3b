//! `man/git-berth.1` is generated from the clap definitions; this test fails when it is stale.
//! Regenerate with: BERTH_BLESS=1 cargo test --test man

use clap::CommandFactory as _;

type RenderPart = fn(&clap_mangen::Man, &mut dyn std::io::Write) -> std::io::Result<()>;

/// The whole page: the top command, then one subsection per command with its synopsis,
/// description and options, so `man git-berth` documents every flag.
fn render() -> String {
    let mut cmd = berth::cli::Cli::command();
    cmd.build();
    let man = clap_mangen::Man::new(cmd.clone()).title("GIT-BERTH");
    let mut page = Vec::new();
    man.render_title(&mut page).unwrap();
    man.render_name_section(&mut page).unwrap();
    man.render_synopsis_section(&mut page).unwrap();
    man.render_description_section(&mut page).unwrap();
    man.render_options_section(&mut page).unwrap();
    page.extend_from_slice(b".SH COMMANDS\n");
    for sub in cmd.get_subcommands() {
        let name = sub.get_bin_name().unwrap_or(sub.get_name()).to_owned();
        page.extend_from_slice(format!(".SS \"{name}\"\n").as_bytes());
        let sub_man = clap_mangen::Man::new(sub.clone());
        let parts: [RenderPart; 3] = [
            clap_mangen::Man::render_synopsis_section,
            clap_mangen::Man::render_description_section,
            clap_mangen::Man::render_options_section,
        ];
        for render_part in parts {
            let mut part = Vec::new();
            render_part(&sub_man, &mut part).unwrap();
            // Inside a subsection a section heading would restart the page; keep the text only.
            page.extend_from_slice(b".PP\n");
            for line in String::from_utf8(part).unwrap().lines() {
                if !line.starts_with(".SH ") {
                    page.extend_from_slice(line.as_bytes());
                    page.push(b'\n');
                }
            }
        }
        if !sub.get_visible_aliases().collect::<Vec<_>>().is_empty() {
            let aliases: Vec<_> = sub.get_visible_aliases().collect();
            page.extend_from_slice(format!(".PP\nAlias: {}\n", aliases.join(", ")).as_bytes());
        }
    }
    man.render_extra_section(&mut page).unwrap();
    man.render_version_section(&mut page).unwrap();
    String::from_utf8(page).unwrap()
}

#[test]
fn the_man_page_matches_the_command_line() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man/git-berth.1");
    let fresh = render();
    if std::env::var_os("BERTH_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "man/git-berth.1 is stale; regenerate it with: BERTH_BLESS=1 cargo test --test man"
    );
}

#[test]
fn every_command_has_a_section_in_the_man_page() {
    let page = render();
    for sub in berth::cli::Cli::command().get_subcommands() {
        assert!(
            page.contains(&format!(".SS \"git berth {}\"", sub.get_name())),
            "no section for {}",
            sub.get_name()
        );
    }
}
