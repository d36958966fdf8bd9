// SPDX-License-Identifier: Apache-2.0
// The plugin registry's creator methods through the public IPluginRegistry interface: registration (both
// overloads), look-up, listing, deregistration, parent search, error recorder, and every refusal's message.
#include "support/capture.h"
#include "support/probe_plugins.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

namespace kiln::test
{
namespace
{

using Severity = nvinfer1::ILogger::Severity;
using nvinfer1::IPluginCreator;
using nvinfer1::IPluginCreatorInterface;
using nvinfer1::IPluginCreatorV3One;

//! A creator of a kind kiln does not know.
class AlienCreator final : public IPluginCreatorInterface
{
public:
    nvinfer1::InterfaceInfo getInterfaceInfo() const noexcept override { return {"PLUGIN CREATOR_V9", 1, 0}; }
};

// A creator registered statically in the test program, as plugin authors do.
class StaticProgramCreator final : public IPluginCreatorV3One
{
public:
    nvinfer1::IPluginV3* createPlugin(
        char const*, nvinfer1::PluginFieldCollection const*, nvinfer1::TensorRTPhase) noexcept override
    {
        return new ProbeV3Plugin("ProgramStatic", "3", "");
    }
    nvinfer1::PluginFieldCollection const* getFieldNames() noexcept override { return &mFields; }
    char const* getPluginName() const noexcept override { return "ProgramStatic"; }
    char const* getPluginVersion() const noexcept override { return "3"; }
    char const* getPluginNamespace() const noexcept override { return ""; }

private:
    nvinfer1::PluginFieldCollection mFields{};
};
REGISTER_TENSORRT_PLUGIN(StaticProgramCreator);

TEST_F(RegistryTest, RegistersAndFindsAV3Creator)
{
    ProbeV3Creator creator{"Pad", "1", "acme"};
    ASSERT_TRUE(mRegistry->registerCreator(creator, "acme"));

    IPluginCreatorInterface* found = mRegistry->getCreator("Pad", "1", "acme");
    ASSERT_EQ(found, &creator);
    EXPECT_STREQ(found->getInterfaceInfo().kind, "PLUGIN CREATOR_V3ONE");
    auto* v3 = static_cast<IPluginCreatorV3One*>(found);
    std::unique_ptr<nvinfer1::IPluginV3> plugin{v3->createPlugin("pad0", nullptr, nvinfer1::TensorRTPhase::kBUILD)};
    auto* core = static_cast<nvinfer1::IPluginV3OneCore*>(
        plugin->getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE));
    EXPECT_STREQ(core->getPluginName(), "Pad");

    EXPECT_EQ(mRegistry->getCreator("Pad", "2", "acme"), nullptr);
    EXPECT_EQ(mRegistry->getCreator("Pad", "1"), nullptr) << "the default namespace is \"\"";
    EXPECT_EQ(mRegistry->getCreator("Pad", "1", "other"), nullptr);
    // Each miss is reported as TensorRT's registry reports it (an error), naming the near miss.
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"IPluginRegistry::getCreator: no creator is registered for plugin \"Pad\" version \"2\" namespace \"acme\". "
         "Did you mean 'Pad' version '1' namespace 'acme' (another version)?"}))
        << mLog.text();
}

TEST_F(RegistryTest, AMissNamesOtherVersionsNamespacesAndSimilarNames)
{
    ProbeV3Creator otherNamespace{"Pad", "1", "other"};
    ProbeV3Creator otherBoth{"Pad", "2", "acme"};
    ProbeV2Creator similar{"pAdd", "1", ""};
    ProbeV3Creator unrelated{"Convolution", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(otherNamespace, "other"));
    ASSERT_TRUE(mRegistry->registerCreator(otherBoth, "acme"));
    ASSERT_TRUE(mRegistry->registerCreator(similar, ""));
    ASSERT_TRUE(mRegistry->registerCreator(unrelated, ""));
    RecordingErrorRecorder recorder; // set after the ASSERTs: the registry must not outlive it holding it
    mRegistry->setErrorRecorder(&recorder);

    EXPECT_EQ(mRegistry->getCreator("Pad", "1", ""), nullptr);
    std::string const expected = "no creator is registered for plugin \"Pad\" version \"1\" namespace \"\". Did you "
                                 "mean 'Pad' version '1' namespace 'other' (another namespace) or 'Pad' version '2' "
                                 "namespace 'acme' (another version and namespace) or 'pAdd' version '1' namespace '' "
                                 "(a similar name)?";
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"IPluginRegistry::getCreator: " + expected})) << mLog.text();
    EXPECT_EQ(mLog.text().find("Convolution"), std::string::npos) << "not near: " << mLog.text();
    EXPECT_EQ(recorder.getNbErrors(), 1) << "reported to the error recorder as well";
    if (recorder.getNbErrors() == 1)
    {
        EXPECT_EQ(recorder.getErrorCode(0), nvinfer1::ErrorCode::kINVALID_ARGUMENT);
        // The recorder's copy is cut to kMAX_DESC_LENGTH bytes.
        EXPECT_NE(std::strstr(recorder.getErrorDesc(0),
                      "IPluginRegistry::getCreator: no creator is registered for plugin \"Pad\" version \"1\""),
            nullptr)
            << recorder.getErrorDesc(0);
    }

    // The deprecated getPluginCreator says the same.
    mLog.clear();
    EXPECT_EQ(mRegistry->getPluginCreator("Pad", "1", ""), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"IPluginRegistry::getPluginCreator: " + expected})) << mLog.text();

    // Nothing near at all.
    mLog.clear();
    EXPECT_EQ(mRegistry->getCreator("Softmax", "1", ""), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"no creator is registered for plugin \"Softmax\" version \"1\" namespace \"\". No creator of that name or a "
         "similar one is registered (4 creators are)."}))
        << mLog.text();
    mRegistry->setErrorRecorder(nullptr);
}

TEST_F(RegistryTest, AMissNamesTheLoadedPluginLibraries)
{
    std::string const path = libraryPath("v3_library");
    nvinfer1::IPluginRegistry::PluginLibraryHandle handle = mRegistry->loadLibrary(path.c_str());
    ASSERT_NE(handle, nullptr) << mLog.text();
    EXPECT_EQ(mRegistry->getCreator("LibV3First", "2", "kilnTest"), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"no creator is registered for plugin \"LibV3First\" version \"2\" namespace \"kilnTest\". Did you mean "
         "'LibV3First' version '1' namespace 'kilnTest' (another version)?",
            "Plugin libraries loaded: ", path}))
        << mLog.text();
    mRegistry->deregisterLibrary(handle);
}

TEST_F(RegistryTest, AHitInTheParentIsNoErrorAndAMissIsReportedOnce)
{
    ProbeV3Creator inParent{"Shared", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(inParent, ""));
    nvinfer1::IPluginRegistry* child = kilnCreatePluginRegistry(mRegistry);
    ASSERT_NE(child, nullptr);
    EXPECT_EQ(child->getCreator("Shared", "1"), &inParent);
    EXPECT_EQ(mLog.text(Severity::kWARNING), "") << "the parent is searched quietly";
    // In the parent as in the registry itself, a creator is found under the namespace it was registered under.
    ProbeV3Creator elsewhere{"Moved", "1", "acme"};
    ASSERT_TRUE(mRegistry->registerCreator(elsewhere, "elsewhere"));
    mLog.clear();
    EXPECT_EQ(child->getCreator("Moved", "1", "elsewhere"), &elsewhere);
    EXPECT_EQ(mLog.text(Severity::kWARNING), "");

    EXPECT_EQ(child->getCreator("Shared", "2"), nullptr);
    std::string const all = mLog.text(Severity::kWARNING);
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"no creator is registered for plugin \"Shared\" version \"2\" namespace \"\" in this registry or its "
         "parents. Did you mean 'Shared' version '1' namespace '' (another version)?"}))
        << all;
    EXPECT_EQ(all.find("no creator"), all.rfind("no creator")) << "one message, not one per registry: " << all;
    kilnDestroyPluginRegistry(child);
}

TEST_F(RegistryTest, DeprecatedOverloadRegistersAV2Creator)
{
    ProbeV2Creator creator{"Legacy", "1", ""};
    // Overload resolution picks registerCreator(IPluginCreator&, ...) for a V2 creator.
    ASSERT_TRUE(mRegistry->registerCreator(creator, ""));

    EXPECT_EQ(mRegistry->getPluginCreator("Legacy", "1"), &creator);
    EXPECT_EQ(mRegistry->getCreator("Legacy", "1"), static_cast<IPluginCreatorInterface*>(&creator));
    int32_t count = -1;
    IPluginCreator* const* list = mRegistry->getPluginCreatorList(&count);
    ASSERT_EQ(count, 1);
    EXPECT_EQ(list[0], &creator);
}

TEST_F(RegistryTest, V2CreatorThroughTheGenericOverloadIsStillAV2Creator)
{
    ProbeV2Creator v2{"Legacy", "1", ""};
    ProbeV3Creator v3{"Modern", "1", ""};
    IPluginCreatorInterface& generic = v2;
    ASSERT_TRUE(mRegistry->registerCreator(generic, ""));
    ASSERT_TRUE(mRegistry->registerCreator(v3, ""));

    EXPECT_EQ(mRegistry->getPluginCreator("Legacy", "1"), &v2) << "classified by its kind string, not the overload";
    int32_t count = -1;
    IPluginCreator* const* list = mRegistry->getPluginCreatorList(&count);
    ASSERT_EQ(count, 1);
    EXPECT_EQ(list[0], &v2);

    EXPECT_EQ(mRegistry->getPluginCreator("Modern", "1"), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kWARNING, {"getPluginCreator", "\"Modern\"", "V3 creator", "use getCreator"}))
        << mLog.text();
}

TEST_F(RegistryTest, DuplicateRegistrationFailsSoftlyAndNamesThePlugin)
{
    ProbeV3Creator first{"Pad", "1", "acme"};
    ProbeV3Creator second{"Pad", "1", "acme"};
    ASSERT_TRUE(mRegistry->registerCreator(first, "acme"));
    EXPECT_FALSE(mRegistry->registerCreator(second, "acme"));
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"IPluginRegistry::registerCreator", "plugin \"Pad\" version \"1\" namespace \"acme\"", "already registered"}))
        << mLog.text();
    EXPECT_FALSE(mRegistry->registerCreator(first, "acme")) << "the same object twice is a duplicate too";

    // The registry stays usable: the first creator is still there, and other keys register.
    EXPECT_EQ(mRegistry->getCreator("Pad", "1", "acme"), &first);
    ProbeV3Creator otherVersion{"Pad", "2", "acme"};
    ProbeV3Creator otherNamespace{"Pad", "1", "zeta"};
    EXPECT_TRUE(mRegistry->registerCreator(otherVersion, "acme"));
    EXPECT_TRUE(mRegistry->registerCreator(otherNamespace, "zeta"));
    EXPECT_EQ(mRegistry->getCreator("Pad", "2", "acme"), &otherVersion);
    EXPECT_EQ(mRegistry->getCreator("Pad", "1", "zeta"), &otherNamespace);
}

TEST_F(RegistryTest, DuplicateV2RegistrationFailsToo)
{
    ProbeV2Creator first{"Legacy", "1", ""};
    ProbeV2Creator second{"Legacy", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(first, ""));
    EXPECT_FALSE(mRegistry->registerCreator(second, ""));
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"plugin \"Legacy\" version \"1\" namespace \"\"", "already registered"}));
}

TEST_F(RegistryTest, RefusesACreatorOfUnknownKind)
{
    AlienCreator alien;
    EXPECT_FALSE(mRegistry->registerCreator(alien, ""));
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"registerCreator", "\"PLUGIN CREATOR_V9\"", "\"PLUGIN CREATOR_V1\"", "\"PLUGIN CREATOR_V3ONE\""}))
        << mLog.text();
    int32_t count = -1;
    EXPECT_EQ(mRegistry->getAllCreators(&count), nullptr);
    EXPECT_EQ(count, 0);
}

TEST_F(RegistryTest, RefusesMissingEmptyOrOverlongNames)
{
    ProbeV3Creator noName{"", "1", ""};
    EXPECT_FALSE(mRegistry->registerCreator(noName, ""));
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"plugin name (getPluginName()) is empty", "version \"1\""})) << mLog.text();

    ProbeV3Creator noVersion{"Pad", "", ""};
    EXPECT_FALSE(mRegistry->registerCreator(noVersion, ""));
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"plugin \"Pad\"", "plugin version (getPluginVersion()) is empty"}));

    ProbeV3Creator longName{std::string(1024, 'x'), "1", ""};
    EXPECT_FALSE(mRegistry->registerCreator(longName, ""));
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"plugin name (getPluginName()) is longer than 1023 bytes"}));

    ProbeV3Creator fits{std::string(1023, 'x'), "1", ""};
    EXPECT_TRUE(mRegistry->registerCreator(fits, ""));

    ProbeV3Creator longNamespace{"Pad", "1", std::string(2000, 'n')};
    EXPECT_FALSE(mRegistry->registerCreator(longNamespace, longNamespace.getPluginNamespace()));
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"plugin namespace is longer than 1023 bytes"}));
}

TEST_F(RegistryTest, NullArgumentsAreRefusedWithAMessage)
{
    EXPECT_EQ(mRegistry->getCreator(nullptr, "1", ""), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"getCreator", "plugin (null) version \"1\"", "must not be null"}));
    EXPECT_EQ(mRegistry->getPluginCreator("Pad", nullptr, ""), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"getPluginCreator", "plugin \"Pad\" version (null)"}));
    EXPECT_EQ(mRegistry->getAllCreators(nullptr), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"getAllCreators", "numCreators is null"}));
    EXPECT_EQ(mRegistry->getPluginCreatorList(nullptr), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"getPluginCreatorList", "numCreators is null"}));
    EXPECT_EQ(mRegistry->getAllCreatorsRecursive(nullptr), nullptr);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"getAllCreatorsRecursive", "numCreators is null"}));

    // A null namespace means the default one.
    ProbeV3Creator creator{"Pad", "1", ""};
    EXPECT_TRUE(mRegistry->registerCreator(creator, nullptr));
    EXPECT_EQ(mRegistry->getCreator("Pad", "1", nullptr), &creator);
}

TEST_F(RegistryTest, WarnsWhenRegisteredUnderAnotherNamespaceThanItReports)
{
    ProbeV3Creator creator{"Pad", "1", "acme"};
    ASSERT_TRUE(mRegistry->registerCreator(creator, "elsewhere"));
    EXPECT_EQ(mRegistry->getCreator("Pad", "1", "elsewhere"), &creator);
    EXPECT_TRUE(mLog.has(Severity::kWARNING,
        {"plugin \"Pad\" version \"1\" namespace \"acme\"", "registered under namespace \"elsewhere\""}))
        << mLog.text();
}

TEST_F(RegistryTest, DeregistersThroughBothOverloads)
{
    ProbeV3Creator v3{"Modern", "1", ""};
    ProbeV2Creator v2{"Legacy", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(v3, ""));
    ASSERT_TRUE(mRegistry->registerCreator(v2, ""));

    EXPECT_TRUE(mRegistry->deregisterCreator(v3));
    EXPECT_EQ(mRegistry->getCreator("Modern", "1"), nullptr);
    EXPECT_TRUE(mRegistry->deregisterCreator(v2)); // the deprecated IPluginCreator const& overload
    EXPECT_EQ(mRegistry->getPluginCreator("Legacy", "1"), nullptr);

    EXPECT_FALSE(mRegistry->deregisterCreator(v3));
    EXPECT_TRUE(mLog.has(Severity::kERROR,
        {"IPluginRegistry::deregisterCreator", "plugin \"Modern\" version \"1\" namespace \"\"", "is not registered"}))
        << mLog.text();

    // After deregistration the key is free again.
    EXPECT_TRUE(mRegistry->registerCreator(v3, ""));
}

TEST_F(RegistryTest, ListsCreatorsInRegistrationOrderWithStableArrays)
{
    int32_t count = -1;
    EXPECT_EQ(mRegistry->getAllCreators(&count), nullptr);
    EXPECT_EQ(count, 0);

    ProbeV3Creator a{"A", "1", ""};
    ProbeV2Creator b{"B", "1", ""};
    ProbeV3Creator c{"C", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(a, ""));
    ASSERT_TRUE(mRegistry->registerCreator(b, ""));
    IPluginCreatorInterface* const* before = mRegistry->getAllCreators(&count);
    ASSERT_EQ(count, 2);
    EXPECT_EQ(mRegistry->getAllCreators(&count), before) << "an unchanged registry returns the same array";

    ASSERT_TRUE(mRegistry->registerCreator(c, ""));
    IPluginCreatorInterface* const* after = mRegistry->getAllCreators(&count);
    ASSERT_EQ(count, 3);
    EXPECT_EQ(after[0], &a);
    EXPECT_EQ(after[1], static_cast<IPluginCreatorInterface*>(&b));
    EXPECT_EQ(after[2], &c);
    // The earlier array still holds what it held.
    EXPECT_EQ(before[0], &a);
    EXPECT_EQ(before[1], static_cast<IPluginCreatorInterface*>(&b));
}

TEST_F(RegistryTest, ListingStaysValidWhileTheRegistryKeepsChanging)
{
    ProbeV3Creator a{"A", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(a, ""));
    int32_t count = 0;
    IPluginCreatorInterface* const* first = mRegistry->getAllCreators(&count);
    ASSERT_EQ(count, 1);
    // Another thread may register and list many times before this one reads its array: each distinct listing gets
    // its own array, and earlier ones are not freed by later ones.
    std::vector<std::unique_ptr<ProbeV3Creator>> others;
    for (int i = 0; i < 64; ++i)
    {
        others.push_back(std::make_unique<ProbeV3Creator>("Other" + std::to_string(i), "1", ""));
        ASSERT_TRUE(mRegistry->registerCreator(*others.back(), ""));
        int32_t n = 0;
        ASSERT_NE(mRegistry->getAllCreators(&n), nullptr);
        EXPECT_EQ(n, i + 2);
    }
    EXPECT_EQ(first[0], &a);
    for (auto const& other : others)
    {
        ASSERT_TRUE(mRegistry->deregisterCreator(*other));
    }
    EXPECT_EQ(mRegistry->getAllCreators(&count), first) << "the same listing again returns the same array";
    EXPECT_EQ(count, 1);
}

TEST_F(RegistryTest, ParentSearchControlsLookupsAndRecursiveListing)
{
    ProbeV3Creator inParent{"Shared", "1", ""};
    ProbeV2Creator v2InParent{"SharedV2", "1", ""};
    ProbeV3Creator inChild{"Local", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(inParent, ""));
    ASSERT_TRUE(mRegistry->registerCreator(v2InParent, ""));
    nvinfer1::IPluginRegistry* child = kilnCreatePluginRegistry(mRegistry);
    ASSERT_NE(child, nullptr);
    ASSERT_TRUE(child->registerCreator(inChild, ""));

    EXPECT_TRUE(child->isParentSearchEnabled()) << "enabled by default";
    EXPECT_EQ(child->getCreator("Shared", "1"), &inParent);
    EXPECT_EQ(child->getPluginCreator("SharedV2", "1"), &v2InParent);
    int32_t count = -1;
    IPluginCreatorInterface* const* own = child->getAllCreators(&count);
    ASSERT_EQ(count, 1) << "getAllCreators lists only the registry's own creators";
    EXPECT_EQ(own[0], &inChild);
    IPluginCreatorInterface* const* all = child->getAllCreatorsRecursive(&count);
    ASSERT_EQ(count, 3);
    EXPECT_EQ(all[0], &inChild);
    EXPECT_EQ(all[1], &inParent);

    child->setParentSearchEnabled(false);
    EXPECT_FALSE(child->isParentSearchEnabled());
    EXPECT_EQ(child->getCreator("Shared", "1"), nullptr);
    EXPECT_EQ(child->getPluginCreator("SharedV2", "1"), nullptr);
    child->getAllCreatorsRecursive(&count);
    EXPECT_EQ(count, 1);
    EXPECT_EQ(mRegistry->getCreator("Local", "1"), nullptr) << "a parent never searches its children";

    kilnDestroyPluginRegistry(child);
}

TEST_F(RegistryTest, ErrorRecorderReceivesRefusalsAndIsReferenceCounted)
{
    RecordingErrorRecorder recorder;
    EXPECT_EQ(mRegistry->getErrorRecorder(), nullptr);
    mRegistry->setErrorRecorder(&recorder);
    EXPECT_EQ(mRegistry->getErrorRecorder(), &recorder);
    EXPECT_EQ(recorder.refCount(), 1);

    ProbeV3Creator creator{"Pad", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(creator, ""));
    EXPECT_FALSE(mRegistry->registerCreator(creator, ""));
    ASSERT_EQ(recorder.getNbErrors(), 1);
    EXPECT_EQ(recorder.getErrorCode(0), nvinfer1::ErrorCode::kINVALID_ARGUMENT);
    EXPECT_NE(std::strstr(recorder.getErrorDesc(0), "plugin \"Pad\" version \"1\""), nullptr);

    RecordingErrorRecorder replacement;
    mRegistry->setErrorRecorder(&replacement);
    EXPECT_EQ(recorder.refCount(), 0);
    EXPECT_EQ(replacement.refCount(), 1);
    mRegistry->setErrorRecorder(nullptr);
    EXPECT_EQ(replacement.refCount(), 0);
    EXPECT_EQ(mRegistry->getErrorRecorder(), nullptr);
}

TEST_F(RegistryTest, DestroyingARegistryDropsItsReferenceToTheRecorder)
{
    RecordingErrorRecorder recorder;
    nvinfer1::IPluginRegistry* registry = kilnCreatePluginRegistry(nullptr);
    registry->setErrorRecorder(&recorder);
    EXPECT_EQ(recorder.refCount(), 1);
    kilnDestroyPluginRegistry(registry);
    EXPECT_EQ(recorder.refCount(), 0);
}

TEST(GlobalRegistry, HoldsCreatorsRegisteredStaticallyInTheProgram)
{
    nvinfer1::IPluginRegistry* global = getPluginRegistry();
    ASSERT_NE(global, nullptr);
    EXPECT_EQ(global, getPluginRegistry()) << "one registry per process";
    IPluginCreatorInterface* creator = global->getCreator("ProgramStatic", "3", "");
    ASSERT_NE(creator, nullptr);
    EXPECT_STREQ(static_cast<IPluginCreatorV3One*>(creator)->getPluginName(), "ProgramStatic");
    EXPECT_FALSE(global->isParentSearchEnabled() && global->getCreator("Missing", "1", "") != nullptr);
}

TEST(GlobalRegistry, IsNeverDestroyedAndForeignRegistriesAreRefused)
{
    CapturingLogger log;
    kilnDestroyPluginRegistry(getPluginRegistry());
    EXPECT_TRUE(log.has(Severity::kERROR, {"kilnDestroyPluginRegistry", "process-wide registry"})) << log.text();
    EXPECT_NE(getPluginRegistry()->getCreator("ProgramStatic", "3", ""), nullptr);

    nvinfer1::IPluginRegistry* registry = kilnCreatePluginRegistry(nullptr);
    kilnDestroyPluginRegistry(registry);
    kilnDestroyPluginRegistry(registry); // a second time: no longer known
    EXPECT_TRUE(log.has(Severity::kERROR, {"kilnDestroyPluginRegistry", "not made by kilnCreatePluginRegistry"}));
}

TEST(Version, ReportsTensorRT1016Compatibility)
{
    EXPECT_EQ(getInferLibVersion(), 101600);
    EXPECT_EQ(getInferLibVersion(), NV_TENSORRT_VERSION);
    EXPECT_EQ(getInferLibMajorVersion(), 10);
    EXPECT_EQ(getInferLibMinorVersion(), 16);
    EXPECT_EQ(getInferLibPatchVersion(), 0);
    EXPECT_EQ(getInferLibBuildVersion(), 72);
    ASSERT_NE(getLogger(), nullptr);
}

TEST(Logger, GetLoggerReturnsTheInstalledLogger)
{
    nvinfer1::ILogger* defaultLogger = getLogger();
    {
        CapturingLogger log;
        EXPECT_EQ(getLogger(), &log);
        getLogger()->log(Severity::kWARNING, "through getLogger");
        EXPECT_TRUE(log.has(Severity::kWARNING, {"through getLogger"}));
    }
    EXPECT_EQ(getLogger(), defaultLogger);
}

} // namespace
} // namespace kiln::test

namespace kiln::test
{
namespace
{

//! A recorder that asks the registry about itself while an error is being reported.
class ReentrantRecorder final : public nvinfer1::IErrorRecorder
{
public:
    explicit ReentrantRecorder(nvinfer1::IPluginRegistry* registry)
        : mRegistry(registry)
    {
    }
    int32_t getNbErrors() const noexcept override { return mErrors; }
    nvinfer1::ErrorCode getErrorCode(int32_t) const noexcept override { return nvinfer1::ErrorCode::kSUCCESS; }
    ErrorDesc getErrorDesc(int32_t) const noexcept override { return ""; }
    bool hasOverflowed() const noexcept override { return false; }
    void clear() noexcept override {}
    bool reportError(nvinfer1::ErrorCode, ErrorDesc) noexcept override
    {
        mSawItself = mRegistry->getErrorRecorder() == this;
        ++mErrors;
        return true;
    }
    RefCount incRefCount() noexcept override { return ++mRefs; }
    RefCount decRefCount() noexcept override { return --mRefs; }

    bool mSawItself{false};
    int32_t mErrors{0};
    RefCount mRefs{0};

private:
    nvinfer1::IPluginRegistry* mRegistry;
};

TEST_F(RegistryTest, ARecorderMayCallTheRegistryWhileItIsReporting)
{
    ReentrantRecorder recorder{mRegistry};
    mRegistry->setErrorRecorder(&recorder);
    EXPECT_NE(mRegistry->releasePluginResource("absent"), 0);
    EXPECT_EQ(recorder.mErrors, 1);
    EXPECT_TRUE(recorder.mSawItself);
    mRegistry->setErrorRecorder(nullptr);
    EXPECT_EQ(recorder.mRefs, 0);
}

TEST_F(RegistryTest, RecorderDescriptionsFitTheDocumentedLength)
{
    RecordingErrorRecorder recorder;
    mRegistry->setErrorRecorder(&recorder);
    ProbeV3Creator creator{"APluginWithQuiteALongName", "12", "a.long.namespace.for.this.plugin"};
    ASSERT_TRUE(mRegistry->registerCreator(creator, "a.long.namespace.for.this.plugin"));
    EXPECT_FALSE(mRegistry->registerCreator(creator, "a.long.namespace.for.this.plugin"));
    ASSERT_EQ(recorder.getNbErrors(), 1);
    EXPECT_LE(std::strlen(recorder.getErrorDesc(0)), nvinfer1::IErrorRecorder::kMAX_DESC_LENGTH);
    EXPECT_NE(std::strstr(recorder.getErrorDesc(0), "APluginWithQuiteALongName"), nullptr) << "the key comes first";
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"already registered; nothing changed"})) << "the logger gets it whole";
    mRegistry->setErrorRecorder(nullptr);
}

TEST_F(RegistryTest, ListingsOfAnUnchangedRegistryAreReusedWhateverTheOrderOfCalls)
{
    ProbeV3Creator a{"A", "1", ""};
    ProbeV2Creator b{"B", "1", ""};
    ASSERT_TRUE(mRegistry->registerCreator(a, ""));
    ASSERT_TRUE(mRegistry->registerCreator(b, ""));
    int32_t count = 0;
    auto* all = mRegistry->getAllCreators(&count);
    auto* recursive = mRegistry->getAllCreatorsRecursive(&count);
    auto* v2 = mRegistry->getPluginCreatorList(&count);
    for (int i = 0; i < 1000; ++i)
    {
        ASSERT_EQ(mRegistry->getAllCreators(&count), all);
        ASSERT_EQ(mRegistry->getAllCreatorsRecursive(&count), recursive);
        ASSERT_EQ(mRegistry->getPluginCreatorList(&count), v2);
    }
}

TEST_F(RegistryTest, AParentIsNotDestroyedWhileItHasChildren)
{
    nvinfer1::IPluginRegistry* child = kilnCreatePluginRegistry(mRegistry);
    kilnDestroyPluginRegistry(mRegistry);
    EXPECT_TRUE(mLog.has(Severity::kERROR, {"kilnDestroyPluginRegistry", "still the parent of another registry"}))
        << mLog.text();
    ProbeV3Creator creator{"Pad", "1", ""};
    EXPECT_TRUE(mRegistry->registerCreator(creator, "")) << "the parent still works";
    EXPECT_EQ(child->getCreator("Pad", "1"), &creator);
    kilnDestroyPluginRegistry(child);
}

} // namespace
} // namespace kiln::test
