// Shared helpers of the header-test fixtures: a live-object counter (to prove that plugins are deleted through the
// right pointer) and the recognisable values the fixtures' methods return. C++14, so the compile matrix can use it.

#ifndef KILN_TESTS_HEADERS_FIXTURE_COMMON_H
#define KILN_TESTS_HEADERS_FIXTURE_COMMON_H

#include <cstdint>

namespace kiln_test
{

//! The number of fixture objects alive; every fixture holds a LiveCounter member.
inline int32_t& liveObjects() noexcept
{
    static int32_t count{0};
    return count;
}

//! Counts itself in liveObjects() for as long as it exists, copies included.
class LiveCounter
{
public:
    LiveCounter() noexcept { ++liveObjects(); }

    LiveCounter(LiveCounter const& /*other*/) noexcept { ++liveObjects(); }

    LiveCounter& operator=(LiveCounter const& /*other*/) noexcept = default;

    ~LiveCounter() { --liveObjects(); }
};

// Values the fixtures return, so a test can tell which override a call through a base pointer reached.
constexpr int32_t kV3ConfigureResult = 3004;
constexpr int32_t kV3OutputDataTypesResult = 3005;
constexpr int32_t kV3OutputShapesResult = 3006;
constexpr int32_t kV3NbOutputs = 1;
constexpr int32_t kV3WorkspaceSize = 3009;
constexpr int32_t kV3ValidTacticsResult = 3010;
constexpr int32_t kV3NbTactics = 2;
constexpr int32_t kV3FirstTactic = 7;
constexpr int32_t kV3SecondTactic = 11;
constexpr int32_t kV3FormatCombinationLimit = 3013;
constexpr int32_t kV3SetTacticResult = 3104;
constexpr int32_t kV3ShapeChangeResult = 3105;
constexpr int32_t kV3EnqueueResult = 3106;

constexpr int32_t kV2NbOutputs = 2;
constexpr int32_t kV2InitializeResult = 2007;
constexpr int32_t kV2WorkspaceSize = 2009;
constexpr int32_t kV2EnqueueResult = 2010;
constexpr int32_t kV2SerializationSize = 4;
constexpr int32_t kV2DynamicWorkspaceSize = 2028;
constexpr int32_t kV2DynamicEnqueueResult = 2029;

} // namespace kiln_test

#endif // KILN_TESTS_HEADERS_FIXTURE_COMMON_H
