//! The worktrees of a fleet or a pipeline, planned before anything is made (atrium's
//! `plan_worktrees`): one per group (across all of a pipeline's stages), in the order agents first name it, with its branch `<branchPrefix><fleet>/<group>` and
//! the agents that share it. Agents with `worktree = false` have none. Pure.

use super::resolve::{AgentSpec, Placement};

/// One worktree of a fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreePlan {
    /// The group's slug: the worktree's name within the fleet.
    pub group: String,
    pub branch: String,
    /// The slugs of the agents that work in it, in the manifest's order.
    pub agents: Vec<String>,
}

/// `<prefix><fleet>/<group>`: the branch of a fleet's worktree (`prefix` is `berth.branchPrefix`).
pub fn branch_name(prefix: &str, fleet: &str, group: &str) -> String {
    format!("{prefix}{fleet}/{group}")
}

/// The worktrees `agents` of fleet `fleet` (its slug) need, one per group.
pub fn plan_worktrees<'a>(
    fleet: &str,
    prefix: &str,
    agents: impl IntoIterator<Item = &'a AgentSpec>,
) -> Vec<WorktreePlan> {
    let mut plans: Vec<WorktreePlan> = Vec::new();
    for agent in agents {
        let Placement::Worktree { group } = &agent.placement else {
            continue;
        };
        match plans.iter_mut().find(|plan| &plan.group == group) {
            Some(plan) => plan.agents.push(agent.slug.clone()),
            None => plans.push(WorktreePlan {
                group: group.clone(),
                branch: branch_name(prefix, fleet, group),
                agents: vec![agent.slug.clone()],
            }),
        }
    }
    plans
}
