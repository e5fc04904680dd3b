//! Fleets on real repositories: `shell` agents started from a manifest, headless (their
//! supervisor records how they end) or in a tab of a private tmux server, each in its worktree;
//! `down` ending every process and removing only what holds nothing of value; `clean` later.

use crate::common;

use common::*;

#[test]
fn a_supervisor_hands_back_the_agents_pid_records_its_exit_and_runs_on_fail_with_its_code() {
    let sb = Sandbox::new();
    let fleet = sb.root.join("fleets/f");
    std::fs::create_dir_all(&fleet).unwrap();
    std::fs::write(
        fleet.join("state.toml"),
        "version = 1\nname = \"f\"\nmanifest = \"f.toml\"\nstarted = 1\n\n[[agent]]\n\
         name = \"a\"\nslug = \"a\"\nagent = \"f/a\"\nruntime = \"shell\"\nbackground = true\n\
         on_complete = \"echo wrong > complete\"\n\
         on_fail = \"echo \\\"$BERTH_AGENT_NAME $BERTH_AGENT_EXIT $X\\\" > failed\"\n\
         on_exit = \"echo exit >> ends\"\n\n[agent.env]\nX = \"from the fleet\"\n",
    )
    .unwrap();
    let pid_file = sb.root.join("a.pid");
    let out = sb.berth(
        &sb.root,
        &[
            "fleet",
            "_supervise",
            fleet.to_str().unwrap(),
            "a",
            "--pid-file",
            pid_file.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "echo working; exit 3",
        ],
    );
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(stdout(&out).contains("working\n"), "{}", outputs(&out));
    assert!(
        stderr(&out).contains("the agent exited with code 3"),
        "{}",
        outputs(&out)
    );
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let state: toml::Table = std::fs::read_to_string(fleet.join("state.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let agent = &state["agent"].as_array().unwrap()[0];
    assert_eq!(agent["exit"].as_integer(), Some(3));
    assert_eq!(agent["pid"].as_integer(), Some(i64::from(pid)));
    assert!(agent["ended"].as_integer().is_some());
    assert!(agent["supervisor"].as_integer().is_some());
    assert_eq!(
        std::fs::read_to_string(sb.root.join("failed")).unwrap(),
        "f/a 3 from the fleet\n"
    );
    assert_eq!(
        std::fs::read_to_string(sb.root.join("ends")).unwrap(),
        "exit\n"
    );
    assert!(!sb.root.join("complete").exists());
}
