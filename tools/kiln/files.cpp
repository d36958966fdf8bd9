// SPDX-License-Identifier: Apache-2.0
#include "files.h"

#include "logger.h"

#include <fstream>
#include <iterator>

namespace kiln_tool
{

std::vector<char> readFile(std::string const& path, std::string const& flag)
{
    std::ifstream file(path, std::ios::binary);
    if (!file)
    {
        throw Failure(flag + ": cannot open " + path);
    }
    return std::vector<char>(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

void writeFile(std::string const& path, void const* data, std::size_t size, std::string const& flag)
{
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(static_cast<char const*>(data), static_cast<std::streamsize>(size));
    if (!file.flush())
    {
        throw Failure(flag + ": cannot write " + path);
    }
}

} // namespace kiln_tool
