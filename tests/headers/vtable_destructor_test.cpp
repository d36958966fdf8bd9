// Destructor slots (spec 0 conventions, 9.2 rule 1), Itanium ABI. A destructor cannot be addressed, so each row
// builds a derived object whose destructor raises a flag, reads the vptr of the interface sub-object and calls the
// entry at the spec's slot directly: D1 (complete-object destructor, `void(*)(void*)`) on placement-new storage,
// then D0 (deleting destructor, slot + 1) on a heap object. Both must run the most-derived destructor.

#include "NvInfer.h"
#include "expr_fixtures.h"
#include "full_callbacks.h"
#include "full_host_plugin.h"
#include "full_registry.h"
#include "full_v2_plugins.h"
#include "full_v3_plugin.h"
#include "slot_probe.h"

#include <new>
#include <utility>

#if defined(KILN_ITANIUM_ABI)

using namespace nvinfer1;
using namespace kiln_test;

namespace
{

//! T with a destructor that raises a flag.
template <typename T>
class Flagged final : public T
{
public:
    explicit Flagged(bool* flag) noexcept
        : mFlag(flag)
    {
    }

    ~Flagged() override { *mFlag = true; }

private:
    bool* mFlag;
};

using VtableEntry = void (*)(void*);

//! The entry at slot of the vtable of the sub-object at base.
VtableEntry entryAt(void const* base, int32_t slot) noexcept
{
    VtableEntry const* vtable = nullptr;
    std::memcpy(&vtable, base, sizeof(vtable));
    return vtable[slot];
}

//! Whether the vtable entry at slot, called on the Base sub-object of a Concrete, is its complete-object destructor.
template <typename Base, typename Concrete>
bool completeDestructorAt(int32_t slot)
{
    if (slot < 0 || slot >= slotCount<Base>())
    {
        return false;
    }
    alignas(Flagged<Concrete>) unsigned char storage[sizeof(Flagged<Concrete>)];
    bool destroyed = false;
    Flagged<Concrete>* const object = new (storage) Flagged<Concrete>(&destroyed);
    Base* const base = object;
    int32_t const liveBefore = liveObjects();
    entryAt(base, slot)(base);
    bool const ok = destroyed && liveObjects() < liveBefore;
    if (!destroyed)
    {
        object->~Flagged<Concrete>();
    }
    return ok;
}

//! Whether the entry at slot, called on the Base sub-object of a heap Concrete, destroys and frees it.
template <typename Base, typename Concrete>
bool deletingDestructorAt(int32_t slot)
{
    if (slot < 0 || slot >= slotCount<Base>())
    {
        return false;
    }
    bool destroyed = false;
    Base* const base = new Flagged<Concrete>(&destroyed);
    entryAt(base, slot)(base);
    return destroyed;
}

struct DestructorRow
{
    char const* name;
    int32_t slot;
    bool complete;
    bool deleting;
};

//! A row: the interface, a concrete class implementing it, and the spec's D1 slot (D0 follows it).
#define KILN_DTOR_ROW(Base, Concrete, slot)                                                                            \
    DestructorRow                                                                                                      \
    {                                                                                                                  \
#Base " in " #Concrete, slot, completeDestructorAt < Base, Concrete>(slot), deletingDestructorAt < Base,       \
            Concrete>((slot) + 1)                                                                                      \
    }

void expectRows(std::initializer_list<DestructorRow> rows)
{
    for (DestructorRow const& row : rows)
    {
        EXPECT_TRUE(row.complete) << row.name << ": slot " << row.slot << " is not the complete-object destructor";
        EXPECT_TRUE(row.deleting) << row.name << ": slot " << row.slot + 1 << " is not the deleting destructor";
    }
}

} // namespace

TEST(VtableDestructors, VersionedInterfacesAtSlot2)
{
    int32_t const live = liveObjects();
    expectRows({
        KILN_DTOR_ROW(IVersionedInterface, FullPluginResource, 2),
        KILN_DTOR_ROW(IPluginV3, FullV3Plugin, 2),
        // Non-primary capability sub-objects: the entry is a this-adjusting thunk.
        KILN_DTOR_ROW(IPluginV3OneCore, FullV3Plugin, 2),
        KILN_DTOR_ROW(IPluginV3OneBuildV2, FullV3Plugin, 2),
        KILN_DTOR_ROW(IPluginV3OneRuntime, FullV3Plugin, 2),
        KILN_DTOR_ROW(kiln::IPluginV3OneHost, FullHostPlugin, 2),
        KILN_DTOR_ROW(IPluginCreatorInterface, FullV3Creator, 2),
        KILN_DTOR_ROW(IPluginCreatorV3One, FullV3Creator, 2),
        KILN_DTOR_ROW(IPluginCreator, FullV2Creator, 2),
        KILN_DTOR_ROW(IPluginResource, FullPluginResource, 2),
        KILN_DTOR_ROW(IErrorRecorder, FullErrorRecorder, 2),
        KILN_DTOR_ROW(IGpuAllocator, FullGpuAllocator, 2),
        KILN_DTOR_ROW(IGpuAsyncAllocator, FullGpuAsyncAllocator, 2),
        KILN_DTOR_ROW(IOutputAllocator, FullOutputAllocator, 2),
        KILN_DTOR_ROW(IStreamReader, FullStreamReader, 2),
        KILN_DTOR_ROW(IStreamReaderV2, FullStreamReaderV2, 2),
        KILN_DTOR_ROW(IStreamWriter, FullStreamWriter, 2),
        KILN_DTOR_ROW(IDebugListener, FullDebugListener, 2),
        KILN_DTOR_ROW(IProgressMonitor, FullProgressMonitor, 2),
    });
    EXPECT_EQ(liveObjects(), live);
}

TEST(VtableDestructors, PluginV2FamilyAtSlot17)
{
    int32_t const live = liveObjects();
    expectRows({
        KILN_DTOR_ROW(IPluginV2, FullV2Plugin, 17),
        KILN_DTOR_ROW(IPluginV2Ext, FullV2ExtPlugin, 17),
        KILN_DTOR_ROW(IPluginV2IOExt, FullV2IOExtPlugin, 17),
        KILN_DTOR_ROW(IPluginV2DynamicExt, FullV2DynamicPlugin, 17),
    });
    EXPECT_EQ(liveObjects(), live);
}

TEST(VtableDestructors, UnversionedInterfaces)
{
    int32_t const live = liveObjects();
    expectRows({
        KILN_DTOR_ROW(IPluginRegistry, FullPluginRegistry, 3),
        KILN_DTOR_ROW(IPluginResourceContext, FullPluginResourceContext, 2),
        KILN_DTOR_ROW(ILogger, FullLogger, 1),
        KILN_DTOR_ROW(ILoggerFinder, FullLoggerFinder, 1),
        KILN_DTOR_ROW(IProfiler, FullProfiler, 1),
    });
    EXPECT_EQ(liveObjects(), live);
}

TEST(VtableDestructors, ImplementationRootsAtSlot0)
{
    int32_t const live = liveObjects();
    expectRows({
        KILN_DTOR_ROW(apiv::VRoot, FullExprBuilderImpl, 0),
        KILN_DTOR_ROW(apiv::VExprBuilder, FullExprBuilderImpl, 0),
        KILN_DTOR_ROW(apiv::VDimensionExpr, FullDimensionExprImpl, 0),
        KILN_DTOR_ROW(INoCopy, TestDimensionExpr, 0),
        KILN_DTOR_ROW(IDimensionExpr, TestDimensionExpr, 0),
        KILN_DTOR_ROW(IExprBuilder, TestExprBuilder, 0),
    });
    EXPECT_EQ(liveObjects(), live);
}

#else

TEST(VtableDestructors, All)
{
    GTEST_SKIP() << "slot numbers are defined for the Itanium C++ ABI only";
}

#endif
