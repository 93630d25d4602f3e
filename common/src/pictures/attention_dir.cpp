#include "tfm/pictures/attention_dir.hpp"

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "tfm/pictures/attention_pictures.hpp"
#include "tfm/pictures/heatmap.hpp"
#include "tfm/pictures/svg.hpp"
#include "tfm/support/text_file.hpp"

namespace tfm {
namespace {

std::string joined(const std::vector<std::string>& labels) {
  std::string text;
  for (const std::string& label : labels) text += label.size() == 1 ? label : " " + label + " ";
  return text;
}

}  // namespace

std::string write_attention_dir(const std::string& dir, const Inspection& inspection,
                                const Vocabulary& source, const Vocabulary& target) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir))
    throw std::runtime_error("cannot create the folder '" + dir + "'" +
                             (error ? ": " + error.message() : ""));
  const std::vector<std::string> source_labels =
      inspection.attention_labels(AttentionKind::kEncoderSelf, source, target).first;
  std::ostringstream page;
  page << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Attention maps</title>"
       << "</head>\n<body style=\"font-family:sans-serif\">\n<h1>Attention maps</h1>\n"
       << "<p>input: <code>" << svg::escape(joined(source_labels)) << "</code><br>output: <code>"
       << svg::escape(joined(token_labels(target, inspection.output, 0))) << "</code></p>\n";
  for (const AttentionKind kind :
       {AttentionKind::kEncoderSelf, AttentionKind::kDecoderSelf, AttentionKind::kCross}) {
    const auto [rows, columns] = inspection.attention_labels(kind, source, target);
    const std::size_t layers = kind == AttentionKind::kEncoderSelf ? inspection.encoder_self.size()
                                                                   : inspection.decoder_self.size();
    page << "<h2>" << svg::escape(attention_kind_title(kind)) << "</h2>\n";
    for (std::size_t layer = 0; layer < layers; ++layer) {
      std::vector<Tensor2> heads;
      std::vector<std::string> titles;
      const std::size_t n_heads =
          (kind == AttentionKind::kEncoderSelf ? inspection.encoder_self : inspection.cross)[layer]
              .shape(1);
      for (std::size_t head = 0; head < n_heads; ++head) {
        heads.push_back(inspection.attention(kind, layer, head));
        titles.push_back("head " + std::to_string(head));
      }
      HeatmapOptions options;
      options.title = std::string(attention_kind_title(kind)) + ", layer " + std::to_string(layer);
      options.x_label = "key";
      options.y_label = "query";
      options.row_labels = rows;
      options.column_labels = columns;
      options.min_value = 0.0f;
      options.max_value = 1.0f;
      const std::string file =
          std::string(attention_kind_name(kind)) + "_layer" + std::to_string(layer) + ".svg";
      write_heatmap_panels_svg((std::filesystem::path(dir) / file).string(), heads, titles,
                               heads.size() <= 4 ? heads.size() : 4, options);
      page << "<p><img src=\"" << file << "\" alt=\"" << file << "\"></p>\n";
    }
  }
  page << "</body></html>\n";
  const std::string index = (std::filesystem::path(dir) / "index.html").string();
  write_text_file(index, page.str());
  return index;
}

std::string attention_dir_note(const std::string& index_path) {
  return "wrote the attention maps of the last text: open " + index_path +
         " in a web browser (or any of the .svg files beside it)";
}

}  // namespace tfm
