// SPDX-License-Identifier: Apache-2.0
// Looking a DataType up by name: the enumerator's name or the common one, both from KILN_DATA_TYPES.
#include "core/data_type.h"

namespace kiln
{

std::optional<DataType> dataTypeFromName(std::string_view name) noexcept
{
    for (auto const& info : kDataTypes)
    {
        if (name == info.name || name == info.shortName)
        {
            return info.type;
        }
    }
    return std::nullopt;
}

} // namespace kiln
