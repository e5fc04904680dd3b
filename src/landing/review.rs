//! Review verdicts: one per branch, kept as a ref under `refs/berth/reviews/` so it survives a lost
//! registry and can travel with a push. A verdict counts only for the commit it was given for.
