// Checks of the exercise embedding (chapter 09).
#include "tfm/layers/embedding.hpp"

#include "convert.hpp"
#include "report.hpp"
#include "tfm/core/random.hpp"
#include "tfm/layers/positional_encoding.hpp"

namespace ex {
Tensor embed(const Ids& ids, const Tensor& table, const Tensor& pe);
Tensor embed_backward(const Ids& ids, const Tensor& grad_x, std::size_t vocab_size);
}  // namespace ex

using namespace ex;
using namespace ex::check;

namespace {

struct Case {
  tfm::TokenIds ids;
  std::size_t vocab, d_model;
};

// The library's forward (embedding, then the positional encoding) and the table's gradient.
void library(const Case& c, const Tensor& table, const Tensor& grad_x, Tensor& x,
             Tensor& grad_table) {
  tfm::Rng rng(1);
  tfm::Embedding embedding(c.vocab, c.d_model, rng);
  embedding.weight.value = to_xt<2>(table);
  tfm::Tensor3 out = embedding.forward(c.ids);
  tfm::PositionalEncoding(16, c.d_model).add_to(out);
  x = to_ex(out);
  embedding.backward(to_xt<3>(grad_x));
  grad_table = to_ex(embedding.weight.grad);
}

}  // namespace

int main() {
  Report report("embedding",
                "ex::embed(ids, table, pe) and ex::embed_backward(ids, grad_x, vocab_size)");
  // The second case repeats tokens (7 three times): their gradients must add up.
  const std::vector<Case> cases = {{{{1, 2, 3}}, 5, 4},
                                   {{{7, 3, 7, 1}, {7, 0, 2, 5}}, 9, 6},
                                   {{{4, 4, 4, 4, 4}, {1, 2, 3, 4, 5}, {9, 8, 9, 8, 0}}, 10, 8}};
  unsigned seed = 500;
  for (const Case& c : cases) {
    const std::string size = "ids " + shape_text({c.ids.shape(0), c.ids.shape(1)}) + ", vocab " +
                             std::to_string(c.vocab) + ", d_model " + std::to_string(c.d_model);
    const Tensor table = random_tensor({c.vocab, c.d_model}, seed += 10);
    const Tensor grad_x = random_tensor({c.ids.shape(0), c.ids.shape(1), c.d_model}, seed + 1);
    const Tensor pe = to_ex(tfm::PositionalEncoding(16, c.d_model).table());
    Tensor want_x, want_grad_table;
    library(c, table, grad_x, want_x, want_grad_table);
    report.check(
        "forward x against the library's Embedding + PositionalEncoding, " + size,
        [&] { return compare("x", want_x, embed(to_ex(c.ids), table, pe), 1e-5f, 1e-5f); },
        "x[b, l] = table[ids[b, l]] * sqrt(d_model) + pe[l]: the position is l, the index within "
        "the sequence, and the scale multiplies the embedding only, not pe.");
    report.check(
        "backward grad_table against the library, " + size,
        [&] {
          return compare("grad_table", want_grad_table,
                         embed_backward(to_ex(c.ids), grad_x, c.vocab), 1e-5f, 1e-5f);
        },
        "grad_table[v] += sqrt(d_model) * grad_x[b, l] for every (b, l) with ids[b, l] == v: add "
        "(+=), "
        "never assign, or a repeated token keeps only its last gradient; rows of unused tokens "
        "stay 0.");
  }
  const Case c = cases[1];
  Tensor table = random_tensor({c.vocab, c.d_model}, 600);
  const Tensor grad_x = random_tensor({2, 4, c.d_model}, 601);
  const Tensor pe = to_ex(tfm::PositionalEncoding(16, c.d_model).table());
  report.check(
      "finite differences of grad_table (L = sum(x * grad_x))",
      [&] {
        const Tensor grad_table = embed_backward(to_ex(c.ids), grad_x, c.vocab);
        return finite_differences("grad_table", table, grad_table, [&] {
          Tensor x, unused;
          library(c, table, grad_x, x, unused);
          return dot(x, grad_x);
        });
      },
      "each use of a row contributes sqrt(d_model) * grad_x at that position.");
  return report.finish();
}
