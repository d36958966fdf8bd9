// SPDX-License-Identifier: Apache-2.0
// JsonLine: the one-JSON-object-per-line output of kiln's benchmarks (kiln_bench, kiln_onnx_parse_bench), which
// bench/report.py and docs/bench/*.jsonl read.
//
//     JsonLine().str("block", "transformer").num("median_ms", 0.122).boolean("ok", true).print();
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

//! One JSON object, printed on one line.
class JsonLine
{
public:
    JsonLine& str(std::string_view key, std::string_view value)
    {
        std::string text = "\"";
        for (char const c : value)
        {
            if (c == '"' || c == '\\')
            {
                text += '\\';
                text += c;
            }
            else if (static_cast<unsigned char>(c) < 0x20)
            {
                char escaped[8];
                std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned>(c));
                text += escaped;
            }
            else
            {
                text += c;
            }
        }
        return raw(key, text + "\"");
    }

    JsonLine& num(std::string_view key, double value)
    {
        if (!std::isfinite(value))
        {
            return raw(key, "null");
        }
        char text[32];
        std::snprintf(text, sizeof(text), "%.6g", value);
        return raw(key, text);
    }

    JsonLine& integer(std::string_view key, int64_t value) { return raw(key, std::to_string(value)); }

    JsonLine& boolean(std::string_view key, bool value) { return raw(key, value ? "true" : "false"); }

    //! Prints the object and a newline to stdout, flushed so lines interleave correctly with stderr.
    void print() const
    {
        std::printf("{%s}\n", mBody.c_str());
        std::fflush(stdout);
    }

private:
    JsonLine& raw(std::string_view key, std::string_view value)
    {
        if (!mBody.empty())
        {
            mBody += ',';
        }
        mBody += '"';
        mBody += key;
        mBody += "\":";
        mBody += value;
        return *this;
    }

    std::string mBody;
};
