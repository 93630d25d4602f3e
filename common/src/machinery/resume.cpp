#include "tfm/machinery/resume.hpp"

#include "tfm/machinery/checkpoint.hpp"

namespace tfm {

void resume_training(Transformer& model, const Adam& optimizer) {
  model.for_each_dropout([&](Dropout& d) { d.skip(optimizer.steps_taken()); });
}

std::size_t resume_from(const std::string& dir, Transformer& model, const ParameterList& params,
                        Adam& optimizer) {
  read_one_version(dir, [&] {  // the weights and Adam's state of one save, not of two
    load_parameters(dir, params);
    if (has_optimizer_state(dir)) load_optimizer_state(dir, params, optimizer);
  });
  resume_training(model, optimizer);  // the dropout masks the saved run would draw next
  return optimizer.steps_taken();
}

}  // namespace tfm
