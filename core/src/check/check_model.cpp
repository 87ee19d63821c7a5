// checkModel: the problems recorded by the model pass (model/par_model_builder.h), which is where
// every rule of the model is enforced; keeping one implementation means `check` and the metrics
// always agree on what is damaged.
#include "sparkscope/core/check_model.h"

#include "sparkscope/core/par_model.h"

namespace sparkscope::core {

std::vector<Problem> checkModel(const Trace& trace) { return buildParModel(trace).problems; }

} // namespace sparkscope::core
