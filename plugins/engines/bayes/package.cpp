#include "cann_debug/package.hpp"
#include "bayes_exact.hpp"
#include "bayes_sampling.hpp"
#include "cpt_learn.hpp"
#include "discretize.hpp"
#include "evidence_source.hpp"

CANN_DEBUG_PACKAGE("bayes", "0.1.0", &cann_debug::plugins::bayes_exact_factory(),
                   &cann_debug::plugins::bayes_sampling_factory(), &cann_debug::plugins::discretize_factory(),
                   &cann_debug::plugins::evidence_source_factory(),
                   &cann_debug::plugins::cpt_learn_factory());
