// Helpers shared by the engine modules.
#include "engine_util.hpp"

#include <fmt/format.h>
#include <variant>

#include "kvplan/error.hpp"
#include "kvplan/quantity.hpp"
#include "kvplan/units.hpp"
#include "kvplan/text.hpp"

namespace kvplan::engines {

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(kGiB));
}

std::string mib(std::uint64_t bytes) {
  return fmt::format("{:.2f}", static_cast<double>(bytes) / static_cast<double>(kMiB));
}

std::uint64_t ceil_frac(std::uint64_t bytes, std::uint32_t ppm) {
  const std::uint64_t floor = mul_frac(bytes, ppm, 1'000'000);
  return floor + ((bytes % 1'000'000) * ppm % 1'000'000 != 0 ? 1 : 0);
}

std::uint64_t with_margin(std::uint64_t budget_bytes, std::uint32_t margin_ppm) {
  return margin_ppm == 0 ? budget_bytes : mul_frac(budget_bytes, 1'000'000 - std::min<std::uint32_t>(margin_ppm, 1'000'000), 1'000'000);
}

std::vector<LayerType> layer_types(const ModelSpec& m, const DType& kv, std::uint32_t tp) {
  std::vector<LayerType> out;
  for (const LayerGroup& g : m.layers) {
    LayerType t;
    t.layers = g.count;
    t.bytes_per_token = bytes_per_token(g.spec, kv, tp);
    t.state_bytes = fixed_bytes_per_sequence(g.spec, kv, tp);
    bool holds = true;
    std::visit(overloaded{
                   [&](const FullAttention& f) { t.kv_heads = f.num_key_value_heads; },
                   [&](const SlidingWindow& s) {
                     t.kind = LayerType::Kind::sliding;
                     t.window = s.window_tokens;
                     t.kv_heads = s.attention.num_key_value_heads;
                   },
                   [&](const LatentAttention&) { t.latent = true; },
                   [&](const RecurrentState& r) {
                     t.kind = LayerType::Kind::recurrent;
                     t.recurrence = r.kind;
                   },
                   [&](const ChunkedLocal& c) {
                     t.kind = LayerType::Kind::chunked;
                     t.window = c.chunk_tokens;
                     t.kv_heads = c.attention.num_key_value_heads;
                   },
                   [&](const CrossAttention& c) {
                     t.kind = LayerType::Kind::encoder;
                     t.window = c.encoder_tokens;
                     t.kv_heads = c.attention.num_key_value_heads;
                     t.bytes_per_token = sat_mul(kv_heads_per_rank(c.attention.num_key_value_heads, tp),
                                                 sat_add(row_bytes(kv, c.attention.head_dim),
                                                         row_bytes(kv, c.attention.v_head_dim.value_or(c.attention.head_dim))));
                     t.state_bytes = 0;  // held per encoder token, in blocks (CrossAttentionSpec)
                   },
                   [&](const SharedKV&) { holds = false; },
                   [&](const IndexerCache&) { t.latent = true; },  // one head per token, not split by TP
                   [&](const NoCache&) { holds = false; },
               },
               g.spec);
    if (!holds) {
      continue;  // a layer that allocates nothing is in no group
    }
    bool merged = false;
    for (LayerType& o : out) {  // same kind, window and sizes: one type (differing sizes stay apart)
      if (o.kind == t.kind && o.window == t.window && o.bytes_per_token == t.bytes_per_token &&
          o.state_bytes == t.state_bytes && o.latent == t.latent) {
        o.layers += t.layers;
        merged = true;
      }
    }
    if (!merged) {
      out.push_back(t);
    }
  }
  return out;
}

std::string_view program_name(std::string_view word) {
  const std::size_t slash = word.find_last_of('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

std::optional<std::size_t> python_module(std::span<const std::string> argv, std::string_view module) {
  if (argv.size() < 3 || program_name(argv[0]).rfind("python", 0) != 0 || argv[1] != "-m" || argv[2] != module) {
    return std::nullopt;
  }
  return 3;
}

Image split_image(std::string_view image) {
  Image out;
  const std::size_t slash = image.find('/');
  // A first component with a dot or a colon (or "localhost") is a registry host.
  if (slash != std::string_view::npos) {
    const std::string_view first = image.substr(0, slash);
    if (first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos || first == "localhost") {
      image.remove_prefix(slash + 1);
    }
  }
  const std::size_t at = image.find('@');  // a digest pins the image, not a version
  if (at != std::string_view::npos) {
    image = image.substr(0, at);
  }
  const std::size_t colon = image.rfind(':');
  if (colon != std::string_view::npos && image.find('/', colon) == std::string_view::npos) {
    out.tag = std::string(image.substr(colon + 1));
    image = image.substr(0, colon);
  }
  out.repository = std::string(image);
  return out;
}

KnobValue human_readable_int(std::string_view where, std::string_view text) {
  // vllm/engine/arg_utils.py human_readable_int: a number with an optional suffix; k/m/g/t are
  // decimal (10^3 ...) and may carry a fraction ("25.6k"), K/M/G/T are binary (2^10 ...) and may not.
  if (text.empty()) {
    throw Error(fmt::format("{}: expected a whole number such as 32768, 32k or 32K (got '')", where));
  }
  const char suffix = text.back();
  std::uint64_t multiplier = 1;
  bool binary = false;
  switch (suffix) {
    case 'k': multiplier = 1'000; break;
    case 'm': multiplier = 1'000'000; break;
    case 'g': multiplier = 1'000'000'000; break;
    case 't': multiplier = 1'000'000'000'000; break;
    case 'K': multiplier = kKiB; binary = true; break;
    case 'M': multiplier = kMiB; binary = true; break;
    case 'G': multiplier = kGiB; binary = true; break;
    case 'T': multiplier = 1024 * kGiB; binary = true; break;
    default: break;
  }
  const std::string_view digits = multiplier == 1 ? text : text.substr(0, text.size() - 1);
  const std::size_t dot = digits.find('.');
  const auto whole = to_unsigned(digits.substr(0, dot));
  std::optional<std::uint64_t> frac;
  std::uint64_t frac_den = 1;
  if (dot != std::string_view::npos) {
    const std::string_view f = digits.substr(dot + 1);
    frac = f.size() <= 9 ? to_unsigned(f) : std::nullopt;
    for (std::size_t i = 0; i < f.size() && i < 9; ++i) {
      frac_den *= 10;
    }
  }
  if (!whole || (dot != std::string_view::npos && (!frac || multiplier == 1 || binary))) {
    throw Error(fmt::format("{}: expected a whole number such as 32768, 32k (10^3) or 32K (2^10) (got {}){}", where,
                            quote_input(text), binary && dot != std::string_view::npos ? "; decimals take a lower-case suffix" : ""));
  }
  const std::uint64_t value = sat_add(sat_mul(*whole, multiplier), mul_frac(multiplier, frac.value_or(0), frac_den));
  if (value == kSaturated) {
    throw Error(fmt::format("{}: {} is too large", where, quote_input(text)));
  }
  return value;
}

KnobValue decimal_gib(std::string_view where, std::string_view text) {
  if (text == "0") {
    return std::uint64_t{0};
  }
  const ParsedSize size = parse_size(where, std::string(text) + "GiB");
  return size.bytes;
}

KnobValue on_off(std::string_view where, std::string_view text) {
  if (text == "on" || text == "true" || text == "1") {
    return true;
  }
  if (text == "off" || text == "false" || text == "0") {
    return false;
  }
  throw Error(fmt::format("{}: expected on or off (got {})", where, quote_input(text)));
}

KnobValue engine_fraction(std::string_view where, std::string_view text) {
  if (!text.empty() && text.front() == '.') {
    return std::uint64_t{parse_fraction_ppm(where, "0" + std::string(text))};
  }
  return std::uint64_t{parse_fraction_ppm(where, text)};
}

}  // namespace kvplan::engines
