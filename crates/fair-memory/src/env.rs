//! Multi-stakeholder episodic environments whose fairness reward depends on
//! the history only through the stakeholders' counts (paper §6): Donut and
//! Lending, with the official code's defaults.
//!
//! The FairQCM assumptions are explicit in the trait: the transition
//! (s, a) → (s', gain) does not depend on the memory, and the reward and the
//! end of the episode are known functions of (s, a, outcome, counts after the
//! step). The learner tracks the counts; counterfactual updates call the
//! same functions with other counts ([`crate::fairqcm`]).

use crate::error::{Error, Result, check_probability};
use crate::welfare::Welfare;
use mlcore::check;
use rand::{Rng, RngExt};

/// One outcome of (s, a).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnvOutcome {
    /// Its probability.
    pub prob: f64,
    /// The next environment state s'.
    pub next: usize,
    /// The stakeholder whose count grows by one, if any.
    pub gain: Option<usize>,
    /// False when the action was wasted (donut dropped, absent applicant).
    pub valid: bool,
}

/// An episodic multi-stakeholder environment with count utilities.
///
/// The methods taking a state `s`, an action `a` or counts are the
/// learners' hot path and do not validate: they expect `s < n_states()`,
/// `a < n_actions()` and `n_stakeholders()` counts. Outside that contract
/// the crate's environments return meaningless values (an out-of-range
/// action is an absent person or applicant; arithmetic saturates or wraps)
/// but never panic. The checked entry points ([`crate::counterfactual`],
/// [`crate::FairQcm::q`], [`crate::dp::greedy_value`]) return typed errors.
pub trait FairEnv {
    /// Number N of stakeholders (length of the count vector).
    fn n_stakeholders(&self) -> usize;
    /// Number of environment states (codes 0..n_states).
    fn n_states(&self) -> usize;
    /// Number of actions.
    fn n_actions(&self) -> usize;
    /// Horizon T: an episode lasts at most T steps, so counts are ≤ T.
    fn horizon(&self) -> usize;
    /// The welfare W of the fairness reward.
    fn welfare(&self) -> Welfare;
    /// The initial distribution: (probability, state) pairs.
    fn initial(&self) -> Vec<(f64, usize)>;
    /// Samples an initial state.
    fn sample_initial<R: Rng + ?Sized>(&self, rng: &mut R) -> usize;
    /// All outcomes of (s, a) with positive probability (they sum to one).
    fn outcomes(&self, s: usize, a: usize) -> Vec<EnvOutcome>;
    /// Samples an outcome of (s, a).
    fn sample<R: Rng + ?Sized>(&self, s: usize, a: usize, rng: &mut R) -> EnvOutcome;
    /// The reward of the step (s, a) → `o` when the counts after it are `counts_next`.
    fn reward(&self, s: usize, a: usize, o: &EnvOutcome, counts_next: &[u32]) -> f64;
    /// Whether the episode ends in `next` with counts `counts_next`.
    fn terminal(&self, next: usize, counts_next: &[u32]) -> bool;
    /// Whether (s, counts) can occur at a non-terminal step of some episode
    /// (used to skip impossible counterfactual memories).
    fn feasible(&self, s: usize, counts: &[u32]) -> bool;
}

/// Whether person/applicant `a` is present in `mask` (false for any `a`
/// beyond the mask's bits).
fn present_in(mask: usize, a: usize) -> bool {
    mask.checked_shr(a as u32).is_some_and(|m| m & 1 == 1) && a < usize::BITS as usize
}

/// Σ counts + d, saturating.
fn elapsed(counts: &[u32], d: usize) -> usize {
    counts
        .iter()
        .fold(d, |acc, &c| acc.saturating_add(c as usize))
}

/// Probability of a presence mask under independent presences p.
fn mask_prob(p: &[f64], mask: usize) -> f64 {
    p.iter()
        .enumerate()
        .map(|(i, &q)| if mask >> i & 1 == 1 { q } else { 1.0 - q })
        .product()
}

fn sample_mask<R: Rng + ?Sized>(p: &[f64], rng: &mut R) -> usize {
    // `<=` as in the official code, so p = 1 is always present and p = 0 never
    // (random() < 1).
    p.iter()
        .enumerate()
        .map(|(i, &q)| usize::from(rng.random::<f64>() < q) << i)
        .sum()
}

fn masks(p: &[f64]) -> Vec<(f64, usize)> {
    (0..1usize << p.len())
        .map(|m| (mask_prob(p, m), m))
        .filter(|&(q, _)| q > 0.0)
        .collect()
}

fn check_presence(p: &[f64], what: &'static str) -> Result<()> {
    if p.is_empty() {
        return Err(Error::NoStakeholders);
    }
    if p.len() > 16 {
        return Err(Error::InvalidParameter {
            name: "people",
            value: p.len() as f64,
            expected: "at most 16 (presence masks are enumerated)",
        });
    }
    p.iter().try_for_each(|&q| check_probability(q, what))
}

/// Parameters of [`Donut`]; `Default` is the official tabular setting.
#[derive(Debug, Clone, PartialEq)]
pub struct DonutConfig {
    /// Presence probability of each person per step (N = its length).
    /// Default [0.8, 0.8, 0.8].
    pub presence: Vec<f64>,
    /// Horizon T (steps per episode). Default 12.
    pub horizon: usize,
    /// The welfare of the reward. Default NSW, λ = 1e-4.
    pub welfare: Welfare,
}

impl Default for DonutConfig {
    fn default() -> Self {
        DonutConfig {
            presence: vec![0.8; 3],
            horizon: 12,
            welfare: Welfare::nsw(),
        }
    }
}

/// The Donut environment: N people, one donut per step given to a chosen
/// person, who gets it only if present (each present independently with
/// probability pᵢ at every step, observed before acting); otherwise it is
/// dropped. Reward r_t = W(u_{t+1}) (NSW of the cumulative donut counts by
/// default), 0 for a dropped donut.
///
/// State s = presence mask + 2ᴺ·d, with d the number of dropped donuts so
/// far, so that t = Σᵢ uᵢ + d and the episode ends when it reaches T. With
/// every pᵢ = 1, d ≡ 0 and (mask, counts) is exactly the official
/// (observation, memory) pair.
///
/// Deviations from the official code, documented: (1) the official state
/// omits d, so with pᵢ < 1 the remaining horizon is hidden and (s, m) is not
/// Markov; we add it so the exact optimum ([`crate::dp`]) is defined;
/// (2) the official `default_obs` list is mutated through an alias across
/// resets; here the initial presence is sampled afresh at every reset.
#[derive(Debug, Clone, PartialEq)]
pub struct Donut {
    cfg: DonutConfig,
}

impl Donut {
    /// Validates the configuration.
    ///
    /// # Errors
    /// [`Error::NoStakeholders`] for no people; [`Error::InvalidProbability`];
    /// [`Error::InvalidParameter`] for T = 0, more than 16 people, or
    /// 2ᴺ·(T + 1) states overflowing `usize`;
    /// the welfare's errors ([`Welfare::check`]).
    pub fn new(cfg: DonutConfig) -> Result<Self> {
        check_presence(&cfg.presence, "presence")?;
        cfg.welfare.check(cfg.presence.len())?;
        check::at_least(cfg.horizon, 1, "horizon", "at least 1")?;
        let n = cfg.presence.len(); // ≤ 16 (check_presence)
        // n_states = 2^N·(T + 1) must fit in usize.
        if cfg
            .horizon
            .checked_add(1)
            .and_then(|t| t.checked_mul(1usize << n))
            .is_none()
        {
            return Err(Error::InvalidParameter {
                name: "horizon",
                value: cfg.horizon as f64,
                expected: "2^N·(T + 1) states that fit in usize",
            });
        }
        Ok(Donut { cfg })
    }

    /// The configuration.
    pub fn config(&self) -> &DonutConfig {
        &self.cfg
    }

    fn split(&self, s: usize) -> (usize, usize) {
        let n = self.cfg.presence.len();
        (s & ((1 << n) - 1), s >> n)
    }

    /// The state code of (presence mask, drops).
    /// (Wrapping arithmetic: meaningful for mask < 2ᴺ and drops ≤ T, never a panic.)
    pub fn state(&self, mask: usize, drops: usize) -> usize {
        mask.wrapping_add(drops.wrapping_shl(self.cfg.presence.len() as u32))
    }
}

impl FairEnv for Donut {
    fn n_stakeholders(&self) -> usize {
        self.cfg.presence.len()
    }
    fn n_states(&self) -> usize {
        (1 << self.cfg.presence.len()) * (self.cfg.horizon + 1)
    }
    fn n_actions(&self) -> usize {
        self.cfg.presence.len()
    }
    fn horizon(&self) -> usize {
        self.cfg.horizon
    }
    fn welfare(&self) -> Welfare {
        self.cfg.welfare
    }
    fn initial(&self) -> Vec<(f64, usize)> {
        masks(&self.cfg.presence)
    }
    fn sample_initial<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        sample_mask(&self.cfg.presence, rng)
    }
    fn outcomes(&self, s: usize, a: usize) -> Vec<EnvOutcome> {
        let (mask, d) = self.split(s);
        let present = present_in(mask, a);
        let d2 = if present { d } else { d.saturating_add(1) };
        masks(&self.cfg.presence)
            .into_iter()
            .map(|(prob, m2)| EnvOutcome {
                prob,
                next: self.state(m2, d2),
                gain: present.then_some(a),
                valid: present,
            })
            .collect()
    }
    fn sample<R: Rng + ?Sized>(&self, s: usize, a: usize, rng: &mut R) -> EnvOutcome {
        let (mask, d) = self.split(s);
        let present = present_in(mask, a);
        let d2 = if present { d } else { d.saturating_add(1) };
        let m2 = sample_mask(&self.cfg.presence, rng);
        EnvOutcome {
            prob: 1.0,
            next: self.state(m2, d2),
            gain: present.then_some(a),
            valid: present,
        }
    }
    fn reward(&self, _s: usize, _a: usize, o: &EnvOutcome, counts_next: &[u32]) -> f64 {
        if o.valid {
            self.cfg.welfare.eval_counts(counts_next)
        } else {
            0.0
        }
    }
    fn terminal(&self, next: usize, counts_next: &[u32]) -> bool {
        let (_, d) = self.split(next);
        elapsed(counts_next, d) >= self.cfg.horizon
    }
    fn feasible(&self, s: usize, counts: &[u32]) -> bool {
        let (_, d) = self.split(s);
        elapsed(counts, d) < self.cfg.horizon
    }
}

/// Parameters of [`Lending`]; `Default` is the official setting.
#[derive(Debug, Clone, PartialEq)]
pub struct LendingConfig {
    /// Initial credit score of each applicant, in 0..=7. Default [4, 4, 7, 7].
    pub credits: Vec<u32>,
    /// Group (0 or 1) of each applicant. Default [0, 0, 1, 1] (the official
    /// rule "action > 1 ⇒ group 1").
    pub groups: Vec<usize>,
    /// Presence probability of each applicant per step. Default 0.8 each.
    pub presence: Vec<f64>,
    /// Horizon T. Default 12.
    pub horizon: usize,
}

impl Default for LendingConfig {
    fn default() -> Self {
        LendingConfig {
            credits: vec![4, 4, 7, 7],
            groups: vec![0, 0, 1, 1],
            presence: vec![0.8; 4],
            horizon: 12,
        }
    }
}

/// Highest credit score.
pub const MAX_CREDIT: u32 = 7;

/// The Lending environment: K applicants in two groups; at each step the
/// bank lends to one present applicant, who repays with probability
/// (credit + 2)/10 (credit +1, capped at 7, successes +1) or defaults
/// (credit −1, floored at 0, successes −1). Stakeholders are the two groups,
/// utilities their loan counts.
///
/// Reward (official): −|L₀ − L₁| after the step; −T for choosing an absent
/// applicant; −10·T at the end if the success counter (starting at T) is
/// below T + ⌊T/10⌋ (these two replace the parity reward).
///
/// State s = mask + 2ᴷ·(credit code + 8ᴷ·(success + (2T + 1)·d)), d the
/// number of wasted steps (t = L₀ + L₁ + d, added as for [`Donut`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Lending {
    cfg: LendingConfig,
    n_states: usize,
}

impl Lending {
    /// Validates the configuration.
    ///
    /// # Errors
    /// [`Error::NoStakeholders`] for no applicants; [`Error::DimensionMismatch`]
    /// for credits/groups/presence of different lengths;
    /// [`Error::InvalidProbability`]; [`Error::InvalidParameter`] for a credit
    /// above 7, a group other than 0/1, T = 0, more than 8 applicants, or a
    /// state space that overflows `usize`.
    pub fn new(cfg: LendingConfig) -> Result<Self> {
        check_presence(&cfg.presence, "presence")?;
        let k = cfg.presence.len();
        for (what, len) in [("credits", cfg.credits.len()), ("groups", cfg.groups.len())] {
            if len != k {
                return Err(Error::DimensionMismatch {
                    what,
                    expected: k,
                    got: len,
                });
            }
        }
        let bad = |name, value: f64, expected| {
            Err(Error::InvalidParameter {
                name,
                value,
                expected,
            })
        };
        if k > 8 {
            return bad("applicants", k as f64, "at most 8");
        }
        if let Some(&c) = cfg.credits.iter().find(|&&c| c > MAX_CREDIT) {
            return bad("credit", f64::from(c), "in 0..=7");
        }
        if let Some(&g) = cfg.groups.iter().find(|&&g| g > 1) {
            return bad("group", g as f64, "0 or 1");
        }
        check::at_least(cfg.horizon, 1, "horizon", "at least 1")?;
        let t = cfg.horizon;
        // Every factor checked: 2T + 1 and T + 1 themselves overflow for T
        // near usize::MAX.
        let n_states = (1usize << k)
            .checked_mul(1usize << (3 * k))
            .and_then(|x| x.checked_mul(t.checked_mul(2)?.checked_add(1)?))
            .and_then(|x| x.checked_mul(t.checked_add(1)?));
        match n_states {
            Some(n_states) => Ok(Lending { cfg, n_states }),
            None => bad("horizon", t as f64, "a state space that fits in usize"),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LendingConfig {
        &self.cfg
    }

    /// Decodes a state into (mask, credits, success counter, wasted steps).
    pub fn decode(&self, s: usize) -> (usize, Vec<u32>, usize, usize) {
        let k = self.cfg.presence.len();
        let mask = s & ((1 << k) - 1);
        let mut r = s >> k;
        let credits = (0..k)
            .map(|_| {
                let c = (r & 7) as u32;
                r >>= 3;
                c
            })
            .collect();
        let span = 2 * self.cfg.horizon + 1;
        (mask, credits, r % span, r / span)
    }

    /// Encodes (mask, credits, success counter, wasted steps), the inverse
    /// of [`Lending::decode`] for valid parts (mask < 2ᴷ, K credits ≤ 7,
    /// success ≤ 2T, d ≤ T); other parts give a meaningless code (wrapping
    /// arithmetic), never a panic. O(K).
    pub fn encode(&self, mask: usize, credits: &[u32], success: usize, d: usize) -> usize {
        let k = self.cfg.presence.len() as u32;
        let shl = |x: usize, by: u32| x.checked_shl(by).unwrap_or(0);
        let code: usize = credits.iter().enumerate().fold(0usize, |acc, (i, &c)| {
            acc.wrapping_add(shl(c as usize, 3u32.saturating_mul(i as u32)))
        });
        let span = self.cfg.horizon.wrapping_mul(2).wrapping_add(1);
        let rest = success.wrapping_add(span.wrapping_mul(d));
        mask.wrapping_add(shl(code.wrapping_add(shl(rest, 3 * k)), k))
    }

    /// Repayment probability of a credit score, (c + 2)/10 (credits above
    /// 7, the maximum, count as 7). O(1).
    pub fn repay_prob(credit: u32) -> f64 {
        f64::from(credit.min(MAX_CREDIT) + 2) / 10.0
    }

    /// The outcome branches of (s, a) before the presence draw: (prob, credits', success', d', gain, valid).
    #[allow(clippy::type_complexity)]
    fn branches(
        &self,
        s: usize,
        a: usize,
    ) -> Vec<(f64, Vec<u32>, usize, usize, Option<usize>, bool)> {
        let (mask, credits, succ, d) = self.decode(s);
        if !present_in(mask, a) {
            return vec![(1.0, credits, succ, d.saturating_add(1), None, false)];
        }
        let g = self.cfg.groups[a];
        let q = Lending::repay_prob(credits[a]);
        let mut up = credits.clone();
        up[a] = (up[a] + 1).min(MAX_CREDIT);
        let mut down = credits;
        down[a] = down[a].saturating_sub(1);
        let top = 2 * self.cfg.horizon;
        vec![
            (q, up, (succ + 1).min(top), d, Some(g), true),
            (1.0 - q, down, succ.saturating_sub(1), d, Some(g), true),
        ]
        .into_iter()
        .filter(|b| b.0 > 0.0)
        .collect()
    }
}

impl FairEnv for Lending {
    fn n_stakeholders(&self) -> usize {
        2
    }
    fn n_states(&self) -> usize {
        self.n_states
    }
    fn n_actions(&self) -> usize {
        self.cfg.presence.len()
    }
    fn horizon(&self) -> usize {
        self.cfg.horizon
    }
    fn welfare(&self) -> Welfare {
        Welfare::DemographicParity
    }
    fn initial(&self) -> Vec<(f64, usize)> {
        masks(&self.cfg.presence)
            .into_iter()
            .map(|(p, m)| (p, self.encode(m, &self.cfg.credits, self.cfg.horizon, 0)))
            .collect()
    }
    fn sample_initial<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let m = sample_mask(&self.cfg.presence, rng);
        self.encode(m, &self.cfg.credits, self.cfg.horizon, 0)
    }
    fn outcomes(&self, s: usize, a: usize) -> Vec<EnvOutcome> {
        let ms = masks(&self.cfg.presence);
        let mut out = Vec::new();
        for (p, c, succ, d, gain, valid) in self.branches(s, a) {
            for &(q, m2) in &ms {
                out.push(EnvOutcome {
                    prob: p * q,
                    next: self.encode(m2, &c, succ, d),
                    gain,
                    valid,
                });
            }
        }
        out
    }
    fn sample<R: Rng + ?Sized>(&self, s: usize, a: usize, rng: &mut R) -> EnvOutcome {
        let br = self.branches(s, a);
        let u: f64 = rng.random();
        let mut acc = 0.0;
        let mut pick = &br[br.len() - 1];
        for b in &br {
            acc += b.0;
            if u < acc {
                pick = b;
                break;
            }
        }
        let m2 = sample_mask(&self.cfg.presence, rng);
        EnvOutcome {
            prob: 1.0,
            next: self.encode(m2, &pick.1, pick.2, pick.3),
            gain: pick.4,
            valid: pick.5,
        }
    }
    fn reward(&self, _s: usize, _a: usize, o: &EnvOutcome, counts_next: &[u32]) -> f64 {
        let t = self.cfg.horizon;
        if self.terminal(o.next, counts_next) {
            let (_, _, succ, _) = self.decode(o.next);
            if succ < t + t / 10 {
                return -10.0 * t as f64;
            }
        }
        if !o.valid {
            return -(t as f64);
        }
        Welfare::DemographicParity.eval_counts(counts_next)
    }
    fn terminal(&self, next: usize, counts_next: &[u32]) -> bool {
        let (_, _, _, d) = self.decode(next);
        elapsed(counts_next, d) >= self.cfg.horizon
    }
    fn feasible(&self, s: usize, counts: &[u32]) -> bool {
        let (_, _, _, d) = self.decode(s);
        elapsed(counts, d) < self.cfg.horizon
    }
}
