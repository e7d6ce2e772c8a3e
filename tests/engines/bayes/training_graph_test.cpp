// The shipped training graph (pipelines/graphs/training.json) counts one loss blow-up once: the symptoms
// that follow from a blow-up whatever caused it (a risen peak, gradient spikes, dead ReLUs, NaNs) are read
// given loss_blowup, so the one fact that tells the causes of a blow-up apart (a batch of 1) still counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "shipped_graph_support.hpp"

namespace cann_debug::bayes {
namespace {

using test::root_posterior;

const std::string kTrainingGraph = test::shipped_graph("training");

// Observed states by variable name.
using States = std::map<std::string, std::string>;

// A run without a symptom of instability (no blow-up, peak, gradient spike or dead layer; a calm loss
// whose progress is `progress`), with `more` observed beside.
States quiet_run(const std::string& progress, const States& more = {}) {
  States run = {{"loss_blowup", "none"},  {"loss_peak", "none"},       {"grad_spikes", "none"},
                {"dead_layers", "alive"}, {"loss_progress", progress}, {"loss_noise", "low"}};
  run.insert(more.begin(), more.end());
  return run;
}

// A run whose loss blew up: every consequence of the blow-up observed, no NaN.
States blown_run(const std::string& configured_batch) {
  return {{"loss_blowup", "blown"},
          {"loss_peak", "risen"},
          {"grad_spikes", "spiky"},
          {"dead_layers", "dead"},
          {"loss_spikes", "material"},
          {"loss_nonfinite", "none"},
          {"configured_batch", configured_batch}};
}

TEST(training_graph, BlowUpConsequencesAreReadGivenTheBlowUp) {
  const Network net = load_graph(kTrainingGraph);
  const int blowup = net.find("loss_blowup");
  for (const char* child : {"loss_peak", "grad_spikes", "dead_layers", "loss_nonfinite", "loss_spikes"}) {
    const auto& parents = net.variables[static_cast<std::size_t>(net.find(child))].parents;
    EXPECT_NE(std::find(parents.begin(), parents.end(), blowup), parents.end()) << child;
  }
}

TEST(training_graph, ABatchOfOneKeepsBatchTooSmallBesideTheLearningRate) {
  const Network net = load_graph(kTrainingGraph);
  // Counted five times over, the blow-up drowned the batch size (batch_too_small 0.002 of the posterior).
  EXPECT_GT(root_posterior(net, blown_run("tiny"), "batch_too_small"), 0.1);
  EXPECT_GT(root_posterior(net, blown_run("tiny"), "lr_too_high") +
                root_posterior(net, blown_run("tiny"), "batch_too_small"),
            0.9);
  // With an ordinary batch the same blow-up is a rate too high.
  EXPECT_GT(root_posterior(net, blown_run("normal"), "lr_too_high"), 0.8);
  EXPECT_LT(root_posterior(net, blown_run("normal"), "batch_too_small"), 0.05);
}

TEST(training_graph, TheRateAgainstTheOptimizersCustomaryOneTipsARateFromABatch) {
  const Network net = load_graph(kTrainingGraph);
  auto with_rate = [](States run, const std::string& rate) {
    run["configured_lr"] = rate;
    return run;
  };
  // A batch of 1 that blew up at an ordinary rate: the balance moves toward the batch (it does not turn:
  // a blow-up is a rate's symptom first, and a too-high rate is not always far above the customary one).
  const auto tiny_normal = with_rate(blown_run("tiny"), "normal");
  EXPECT_GT(root_posterior(net, tiny_normal, "batch_too_small"),
            root_posterior(net, blown_run("tiny"), "batch_too_small") + 0.05);
  // The same blow-up at a hundred times the customary rate: the rate.
  const auto tiny_extreme = with_rate(blown_run("tiny"), "extreme");
  EXPECT_GT(root_posterior(net, tiny_extreme, "lr_too_high"), 0.9);
  // Ten times tips less than a hundred times; neither overturns a healthy run's signals on its own.
  const auto ordinary = with_rate(blown_run("normal"), "normal");
  EXPECT_LT(root_posterior(net, ordinary, "lr_too_high"),
            root_posterior(net, with_rate(blown_run("normal"), "high"), "lr_too_high"));
  const States clean = quiet_run("decreasing", {{"configured_lr", "extreme"}});
  EXPECT_GT(root_posterior(net, clean, "healthy"), root_posterior(net, clean, "lr_too_high"));
}

TEST(training_graph, AnEffectOfThePositionInTheEpochTipsACleanRunToAStoredOrder) {
  const Network net = load_graph(kTrainingGraph);
  // A run that learnt without a symptom but a faint correlation one epoch apart (a stored order behind a
  // shuffle buffer): healthy leads until each position of the epoch is seen to have its own kind of batch.
  States run = quiet_run("decreasing", {{"epoch_periodicity", "weak"}, {"epoch_repeat", "none"}});
  EXPECT_GT(root_posterior(net, run, "healthy"), root_posterior(net, run, "unshuffled_data"));
  auto positioned = run;
  positioned["epoch_position"] = "strong";
  EXPECT_GT(root_posterior(net, positioned, "unshuffled_data"), root_posterior(net, positioned, "healthy"));
  // In odds against a healthy run (a share saturates): the hand-set table's 0.4 / 0.005, less what the
  // periodicity read given the position takes back (a stored order with a strong position effect mostly
  // repeats visibly, so a weak periodicity beside it is the rarer pair).
  auto odds = [&](const States& r) {
    return root_posterior(net, r, "unshuffled_data") / root_posterior(net, r, "healthy");
  };
  EXPECT_GT(odds(positioned), 5.0 * odds(run));
  // Its absence is no strong evidence against a stored order (the periodicity's own table already counts
  // that): it moves the stored order's share by less than a factor of 3.
  auto stored = run;
  stored["epoch_periodicity"] = "periodic";
  auto unseen = stored;
  unseen["epoch_position"] = "none";
  EXPECT_GT(root_posterior(net, unseen, "unshuffled_data"),
            root_posterior(net, stored, "unshuffled_data") / 3.0);
}

TEST(training_graph, AJumpAtTheEpochStartShowsAStoredOrderThatRepeatsOnlyInKind) {
  const Network net = load_graph(kTrainingGraph);
  const auto& parents = net.variables[static_cast<std::size_t>(net.find("epoch_periodicity"))].parents;
  EXPECT_NE(std::find(parents.begin(), parents.end(), net.find("epoch_start_jump")), parents.end());
  // A long-epoch run under three epochs that stalled: no periodicity one epoch apart (the batches differ,
  // only their kind comes back) and no position test (too few epochs).
  States run = quiet_run("stalled", {{"epoch_periodicity", "none"}, {"epoch_start_jump", "none"}});
  EXPECT_GT(root_posterior(net, run, "healthy"), root_posterior(net, run, "unshuffled_data"));
  // The loss steps up where the order starts again: given the jump, the missing periodicity no longer
  // counts twenty times against the stored order, and the stored order leads.
  auto jumped = run;
  jumped["epoch_start_jump"] = "jump";
  EXPECT_GT(root_posterior(net, jumped, "unshuffled_data"), root_posterior(net, jumped, "healthy"));
  // A periodicity beside the jump still counts for the order (a jump does not make it redundant).
  auto periodic = jumped;
  periodic["epoch_periodicity"] = "periodic";
  EXPECT_GT(root_posterior(net, periodic, "unshuffled_data"), root_posterior(net, jumped, "unshuffled_data"));
  // Where the test could not run (short epochs, a log without epochs) the run is read on its periodicity
  // as learnt for such runs: without one, healthy leads.
  auto unmeasured = run;
  unmeasured["epoch_start_jump"] = "unmeasured";
  EXPECT_GT(root_posterior(net, unmeasured, "healthy"), root_posterior(net, unmeasured, "unshuffled_data"));
}

TEST(training_graph, AStoredOrderThatNeverRepeatsIsWeighedOnceForAllItsEpochSymptoms) {
  const Network net = load_graph(kTrainingGraph);
  const int kind = net.find("order_kind");
  ASSERT_GE(kind, 0);
  for (const char* child : {"epoch_start_jump", "epoch_periodicity", "epoch_repeat", "epoch_position"}) {
    const auto& parents = net.variables[static_cast<std::size_t>(net.find(child))].parents;
    EXPECT_NE(std::find(parents.begin(), parents.end(), kind), parents.end()) << child;
  }
  // Shards of one class each, their order shuffled every epoch: neighbouring batches alike, nothing one
  // epoch apart.
  const States neighbours = quiet_run(
      "decreasing", {{"batch_correlation", "correlated"}, {"grad_batch_correlation", "correlated"}});
  States none_apart = neighbours;
  for (const char* symptom : {"epoch_periodicity", "epoch_repeat", "epoch_position"})
    none_apart[symptom] = "none";
  none_apart["epoch_start_jump"] = "none";
  auto odds = [&](const States& r) {
    return root_posterior(net, r, "unshuffled_data") / root_posterior(net, r, "healthy");
  };
  // The four absences count once, as the share of orders that never repeat, not once per symptom against
  // the repeating kind alone (about 0.03 in all).
  EXPECT_GT(odds(none_apart), 0.1 * odds(neighbours));
  // A clean run with independent neighbours: the stored order the epoch symptoms did not show stays far
  // behind a healthy run.
  const States clean = quiet_run("decreasing", {{"batch_correlation", "independent"},
                                                {"grad_batch_correlation", "independent"},
                                                {"epoch_periodicity", "none"},
                                                {"epoch_start_jump", "none"}});
  EXPECT_GT(root_posterior(net, clean, "healthy"), 20.0 * root_posterior(net, clean, "unshuffled_data"));
}

// A stored order behind a shuffle buffer comes back in kind, not batch by batch: only the position test sees
// it, weakly. The lag periodicity is read given the position effect, so its absence there weighs little, and
// a weak position effect, which no fresh order of the corpus reaches, counts for the stored order.
TEST(training_graph, AWeakPositionEffectIsAnOrderThatComesBackInKind) {
  const Network net = load_graph(kTrainingGraph);
  const int position = net.find("epoch_position");
  ASSERT_GE(position, 0);
  const auto& parents = net.variables[static_cast<std::size_t>(net.find("epoch_periodicity"))].parents;
  EXPECT_NE(std::find(parents.begin(), parents.end(), position), parents.end());
  const States clean = quiet_run("decreasing", {{"batch_correlation", "independent"},
                                                {"grad_batch_correlation", "independent"},
                                                {"epoch_start_jump", "none"},
                                                {"epoch_repeat", "none"},
                                                {"objective", "classification"},
                                                {"batch_class_mix", "mixed"}});
  auto with = [&](const std::string& position_state, const std::string& periodicity) {
    States run = clean;
    run["epoch_position"] = position_state;
    run["epoch_periodicity"] = periodicity;
    return run;
  };
  auto odds = [&](const States& r) {
    return root_posterior(net, r, "unshuffled_data") / root_posterior(net, r, "healthy");
  };
  EXPECT_GT(root_posterior(net, with("none", "none"), "healthy"),
            20.0 * root_posterior(net, with("none", "none"), "unshuffled_data"));
  EXPECT_GT(odds(with("weak", "none")), 30.0 * odds(with("none", "none")));
  // The absence of periodicity costs a weak position effect less than a strong one.
  EXPECT_GT(odds(with("weak", "none")) / odds(with("weak", "weak")),
            2.0 * odds(with("strong", "none")) / odds(with("strong", "weak")));
}

// Batches of a few classes (the output bias gradient) need no epoch to repeat: with the order kind they tip
// a shard order whose epochs show nothing; mixed batches keep a clean run healthy. Under a regression loss
// the reading says nothing.
TEST(training_graph, BatchesOfAFewClassesShowAnOrderThatNeverRepeats) {
  const Network net = load_graph(kTrainingGraph);
  States shards = quiet_run("decreasing", {{"objective", "classification"}});
  for (const char* symptom : {"epoch_periodicity", "epoch_repeat", "epoch_position"})
    shards[symptom] = "none";
  shards["epoch_start_jump"] = "none";
  States concentrated = shards, mixed = shards;
  concentrated["batch_class_mix"] = "concentrated";
  mixed["batch_class_mix"] = "mixed";
  EXPECT_GT(root_posterior(net, concentrated, "unshuffled_data"),
            root_posterior(net, concentrated, "healthy"));
  EXPECT_GT(root_posterior(net, mixed, "healthy"), 5.0 * root_posterior(net, mixed, "unshuffled_data"));
  EXPECT_GT(root_posterior(net, concentrated, "unshuffled_data"),
            10.0 * root_posterior(net, mixed, "unshuffled_data"));
  States regression = concentrated;
  regression["objective"] = "regression";
  States unread = shards;
  unread["objective"] = "regression";
  EXPECT_NEAR(root_posterior(net, regression, "unshuffled_data"),
              root_posterior(net, unread, "unshuffled_data"), 1e-9);
}

// A permutation drawn once and reused every epoch repeats its batches as a stored order does, but each batch
// is a random sample: mixed and independent of its neighbours, it is a healthy run (order_kind reused);
// batches of a few classes, neighbours alike, or neighbouring positions of the epoch alike (a smooth profile)
// make the same repetition a stored order.
TEST(training_graph, ARepeatOfMixedIndependentBatchesIsAReusedPermutation) {
  const Network net = load_graph(kTrainingGraph);
  const States reused = quiet_run("decreasing", {{"epoch_periodicity", "periodic"},
                                                 {"epoch_repeat", "sharp"},
                                                 {"epoch_position", "strong"},
                                                 {"epoch_start_jump", "none"},
                                                 {"objective", "classification"},
                                                 {"batch_class_mix", "mixed"},
                                                 {"batch_correlation", "independent"},
                                                 {"grad_batch_correlation", "independent"},
                                                 {"epoch_profile", "none"}});
  EXPECT_GT(root_posterior(net, reused, "healthy"), 2.0 * root_posterior(net, reused, "unshuffled_data"));
  for (const auto& [variable, state] :
       std::vector<std::pair<std::string, std::string>>{{"batch_class_mix", "concentrated"},
                                                        {"batch_correlation", "correlated"},
                                                        {"epoch_profile", "smooth"}}) {
    States stored = reused;
    stored[variable] = state;
    EXPECT_GT(root_posterior(net, stored, "unshuffled_data"), root_posterior(net, stored, "healthy"))
        << variable << "=" << state;
  }
  // Batches less balanced than random sampling makes them weigh for a stored order, short of deciding alone.
  States uneven = reused;
  uneven["batch_class_mix"] = "uneven";
  EXPECT_GT(root_posterior(net, uneven, "unshuffled_data"),
            3.0 * root_posterior(net, reused, "unshuffled_data"));
  // Without the repetition the same batches are a fresh shuffle's: no kind of order weighs.
  States fresh = reused;
  for (const char* symptom : {"epoch_periodicity", "epoch_repeat", "epoch_position"}) fresh[symptom] = "none";
  EXPECT_GT(root_posterior(net, fresh, "healthy"), 20.0 * root_posterior(net, fresh, "unshuffled_data"));
}

TEST(training_graph, ARepeatedBatchIsAStoredOrder) {
  const Network net = load_graph(kTrainingGraph);
  // One step per epoch over a dataset larger than the batch: a smooth loss, no periodicity to see.
  States run = quiet_run("decreasing");
  const double before = root_posterior(net, run, "unshuffled_data");
  EXPECT_GT(root_posterior(net, run, "healthy"), before);
  run["same_batch"] = "repeated";
  EXPECT_GT(root_posterior(net, run, "unshuffled_data"), root_posterior(net, run, "healthy"));
  EXPECT_GT(root_posterior(net, run, "unshuffled_data"), 0.5);
}

TEST(training_graph, TwoLooksAtOneLagAreReadTogether) {
  const Network net = load_graph(kTrainingGraph);
  auto parents_of = [&](const char* child) {
    return net.variables[static_cast<std::size_t>(net.find(child))].parents;
  };
  auto has = [](const std::vector<int>& parents, int v) {
    return std::find(parents.begin(), parents.end(), v) != parents.end();
  };
  // The epoch-lag size and the epoch-lag test; the lag-1 correlation of the loss and of the gradient norm.
  EXPECT_TRUE(has(parents_of("epoch_repeat"), net.find("epoch_periodicity")));
  EXPECT_TRUE(has(parents_of("grad_batch_correlation"), net.find("batch_correlation")));
  // A clean run without any periodicity: the epoch-lag test finding none as well takes less than half of
  // what a stored order had left (counted as a second independent symptom it took two thirds).
  States run = quiet_run("decreasing", {{"epoch_periodicity", "none"}});
  const double without = root_posterior(net, run, "unshuffled_data");
  run["epoch_repeat"] = "none";
  EXPECT_GT(root_posterior(net, run, "unshuffled_data"), without / 2.0);
  // Gradient norms that follow the correlated loss add little: a stored order and a too-high rate, both of
  // which correlate neighbouring losses, keep their balance.
  States correlated = run;
  correlated["batch_correlation"] = "correlated";
  const double ratio =
      root_posterior(net, correlated, "unshuffled_data") / root_posterior(net, correlated, "lr_too_high");
  correlated["grad_batch_correlation"] = "correlated";
  const double ratio_both =
      root_posterior(net, correlated, "unshuffled_data") / root_posterior(net, correlated, "lr_too_high");
  // Learnt: 1.3 while a reused permutation counted as a stored order, 1.5 since the stored orders are all
  // sorted or in blocks, whose gradient norms follow their loss more often.
  EXPECT_LT(std::fabs(std::log(ratio_both / ratio)), std::log(1.7));
}

// A squared error's batch noise is about sqrt(2/B) of the level the loss reached, a cross-entropy's a small
// share of its first loss: the graph reads each run's noise against the scale its objective gives it.
TEST(training_graph, ARegressionLossReadsItsBatchNoiseAgainstItsLevel) {
  const Network net = load_graph(kTrainingGraph);
  // A batch of 16: a quarter of the first loss, a quarter of the level.
  auto noisy = [](const std::string& objective, const std::string& over_level) {
    States run = quiet_run("slow", {{"objective", objective}, {"loss_level_noise", over_level}});
    run["loss_noise"] = "high";
    return run;
  };
  const double classifier = root_posterior(net, noisy("classification", "low"), "batch_too_small");
  const double regression = root_posterior(net, noisy("regression", "low"), "batch_too_small");
  EXPECT_LT(regression, 0.05);
  EXPECT_GT(classifier, 4.0 * regression);
  const auto& causes = net.variables[static_cast<std::size_t>(net.find("root_cause"))].states;
  for (const std::string& cause : causes) {  // a slow, calm run: healthy first
    if (cause == "healthy") continue;
    EXPECT_GT(root_posterior(net, noisy("regression", "low"), "healthy"),
              root_posterior(net, noisy("regression", "low"), cause))
        << cause;
  }
  // A batch of a few samples: noise of the order of the level.
  EXPECT_GT(root_posterior(net, noisy("regression", "high"), "batch_too_small"),
            root_posterior(net, noisy("regression", "high"), "healthy"));
  // The level noise says nothing of a classifier, whose memorised loss is tiny and spread.
  EXPECT_NEAR(root_posterior(net, noisy("classification", "high"), "batch_too_small"), classifier, 1e-9);
}

}  // namespace
}  // namespace cann_debug::bayes
