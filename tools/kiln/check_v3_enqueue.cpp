// SPDX-License-Identifier: Apache-2.0
// `kiln check-plugin`'s V3 rules on enqueueHost (kiln's host capability): every output written (two runs with
// different canary bytes) and nothing touched out of bounds (guarded buffers, inputs compared).
#include "check_v3.h"

#include "specs.h"

#include <cstring>

namespace kiln_tool::check_v3
{
namespace
{

// ---- enqueue ------------------------------------------------------------------------------------------------------

int64_t volume(Dims const& dims)
{
    int64_t count = 1;
    for (int32_t i = 0; i < dims.nbDims; ++i)
    {
        count *= dims.d[i];
    }
    return count;
}

//! One run of enqueueHost on guarded buffers whose outputs start as canary bytes.
struct EnqueueRun
{
    int32_t status{-1};
    std::optional<Fault> fault;
    std::vector<std::vector<char>> outputs; //!< Each output's bytes and the gap after it, after the run.
};

struct EnqueueBuffers
{
    std::vector<std::unique_ptr<GuardedBuffer>> inputs;
    std::vector<std::vector<char>> inputBytes; //!< What the inputs held before.
    std::vector<std::unique_ptr<GuardedBuffer>> outputs;
    std::unique_ptr<GuardedBuffer> workspace;

    std::vector<GuardedBuffer const*> all() const
    {
        std::vector<GuardedBuffer const*> list;
        for (auto const& buffer : inputs)
        {
            list.push_back(buffer.get());
        }
        for (auto const& buffer : outputs)
        {
            list.push_back(buffer.get());
        }
        if (workspace != nullptr)
        {
            list.push_back(workspace.get());
        }
        return list;
    }

    //! "input 0", "output 1", "the workspace".
    std::string nameOf(GuardedBuffer const* buffer) const
    {
        for (std::size_t i = 0; i < inputs.size(); ++i)
        {
            if (inputs[i].get() == buffer)
            {
                return "input " + std::to_string(i);
            }
        }
        for (std::size_t i = 0; i < outputs.size(); ++i)
        {
            if (outputs[i].get() == buffer)
            {
                return "output " + std::to_string(i);
            }
        }
        return "the workspace";
    }
};

EnqueueRun runOnce(kiln::IPluginV3OneHost& host, SampleIO const& sample, EnqueueBuffers& buffers, char canary)
{
    std::vector<PluginTensorDesc> const descs = sample.descriptors();
    std::vector<void const*> in;
    std::vector<void*> out;
    for (auto const& buffer : buffers.inputs)
    {
        in.push_back(buffer->data());
    }
    for (auto const& buffer : buffers.outputs)
    {
        std::memset(buffer->data(), canary, buffer->size() + buffer->gap());
        out.push_back(buffer->data());
    }
    EnqueueRun run;
    announce("enqueueHost");
    run.fault = callGuarded(buffers.all(), [&] {
        run.status = host.enqueueHost(descs.data(), descs.data() + sample.inputs.size(), in.data(), out.data(),
            buffers.workspace != nullptr ? buffers.workspace->data() : nullptr);
    });
    for (auto const& buffer : buffers.outputs)
    {
        auto const* bytes = static_cast<char const*>(buffer->data());
        run.outputs.emplace_back(bytes, bytes + buffer->size() + buffer->gap());
    }
    return run;
}

} // namespace

std::vector<Finding> checkEnqueue(CreatorCase const& c)
{
    SampleIO const& sample = *c.sample; // the step needs one: check_plugin.cpp skips it otherwise
    if (!sample.shapesKnown)
    {
        throw StepSkipped{"the output shapes are unknown at the sample (" + sample.shapesRefusal + sample.shapesProblem
            + "): nothing to size the outputs by"};
    }
    V3Ptr plugin = sampleCreate(c);
    Capabilities const caps = usableCapabilities(*plugin);
    if (caps.host == nullptr)
    {
        throw StepSkipped{"no host implementation (kiln::IPluginV3OneHost, found through RTTI): enqueue not run "
                          "without a GPU"};
    }
    std::vector<DynamicPluginTensorDesc> const dynamic = dynamicOf(sample.descriptors());
    auto const nbInputs = static_cast<int32_t>(sample.inputs.size());
    auto const nbOutputs = static_cast<int32_t>(sample.outputs.size());
    announce("configurePlugin");
    if (int32_t const status
        = caps.build->configurePlugin(dynamic.data(), nbInputs, dynamic.data() + nbInputs, nbOutputs))
    {
        throw StepSkipped{"configurePlugin refused the sample " + sample.text() + " (returned " + std::to_string(status)
            + "): give the inputs it takes with --shapes, or fields with --field"};
    }
    announce("getWorkspaceSize");
    std::size_t const workspace
        = caps.build->getWorkspaceSize(dynamic.data(), nbInputs, dynamic.data() + nbInputs, nbOutputs);
    CheckResourceContext context;
    V3Ptr attached = attach(*plugin, *caps.runtime, context);
    if (attached == nullptr)
    {
        throw StepSkipped{"attachToContext gave no object of its own (see attach-to-context)"};
    }
    Capabilities const run = usableCapabilities(*attached, "the attached object's");
    if (run.host == nullptr)
    {
        throw StepSkipped{"the object attachToContext returned has no host capability, though the plugin has one"};
    }
    std::vector<PluginTensorDesc> const descs = sample.descriptors();
    announce("setTactic");
    if (int32_t const status = run.runtime->setTactic(0))
    {
        throw StepSkipped{"setTactic(0) returned " + std::to_string(status)};
    }
    announce("onShapeChange");
    if (int32_t const status = run.runtime->onShapeChange(descs.data(), nbInputs, descs.data() + nbInputs, nbOutputs))
    {
        throw StepSkipped{"onShapeChange refused the sample (returned " + std::to_string(status) + ")"};
    }

    EnqueueBuffers buffers;
    for (int32_t i = 0; i < nbInputs; ++i)
    {
        TensorSample const& input = sample.inputs[static_cast<std::size_t>(i)];
        std::size_t const bytes = byteCount(input.type, volume(input.dims));
        buffers.inputs.push_back(std::make_unique<GuardedBuffer>(bytes));
        fillRandom(buffers.inputs.back()->data(), input.type, volume(input.dims), static_cast<uint32_t>(i + 1));
        auto const* data = static_cast<char const*>(buffers.inputs.back()->data());
        buffers.inputBytes.emplace_back(data, data + bytes);
    }
    for (TensorSample const& output : sample.outputs)
    {
        buffers.outputs.push_back(std::make_unique<GuardedBuffer>(byteCount(output.type, volume(output.dims))));
    }
    if (workspace > 0)
    {
        buffers.workspace = std::make_unique<GuardedBuffer>(workspace);
    }
    EnqueueRun const first = runOnce(*run.host, sample, buffers, static_cast<char>(0xA5));
    EnqueueRun const second = runOnce(*run.host, sample, buffers, static_cast<char>(0x5A));

    std::vector<Finding> findings;
    // outputs-written: bytes that kept the canary in both runs were never written.
    std::optional<Fault> const fault = first.fault ? first.fault : second.fault;
    std::string const stopped = fault ? " (enqueueHost was stopped by a fault: see memory-bounds)" : "";
    int32_t const status = first.status != 0 ? first.status : second.status;
    if (!fault && status != 0)
    {
        findings.push_back(broken("outputs-written",
            "enqueueHost returned " + std::to_string(status) + " for " + sample.text()
                + ", which configurePlugin and onShapeChange accepted"));
    }
    for (std::size_t o = 0; o < buffers.outputs.size() && findings.empty(); ++o)
    {
        std::size_t const size = buffers.outputs[o]->size();
        std::size_t unwritten = 0;
        std::size_t firstUnwritten = size;
        for (std::size_t b = 0; b < size; ++b)
        {
            if (first.outputs[o][b] == static_cast<char>(0xA5) && second.outputs[o][b] == static_cast<char>(0x5A))
            {
                firstUnwritten = std::min(firstUnwritten, b);
                ++unwritten;
            }
        }
        if (unwritten > 0)
        {
            TensorSample const& output = sample.outputs[o];
            findings.push_back(broken("outputs-written",
                "output " + std::to_string(o) + " (" + std::string(typeName(output.type)) + " " + dimsText(output.dims)
                    + ", " + std::to_string(size) + " bytes): " + std::to_string(unwritten)
                    + " bytes never written, the first at byte " + std::to_string(firstUnwritten) + stopped));
        }
    }
    if (findings.empty())
    {
        findings.push_back(passed("outputs-written",
            "enqueueHost wrote every byte of " + counted(static_cast<std::size_t>(nbOutputs), "output") + " for "
                + sample.text() + stopped));
    }
    // memory-bounds: a fault on a guard page, bytes written in an output's alignment gap, inputs changed.
    if (fault)
    {
        std::size_t const size = fault->buffer->size();
        findings.push_back(broken("memory-bounds",
            std::string("enqueueHost ") + fault->access + " byte " + std::to_string(fault->offset) + " of "
                + buffers.nameOf(fault->buffer) + ", which has " + std::to_string(size) + " bytes"
                + (fault->offset >= size ? " (past its end)" : "")));
        return findings;
    }
    for (std::size_t o = 0; o < buffers.outputs.size(); ++o)
    {
        std::size_t const size = buffers.outputs[o]->size();
        for (std::size_t b = size; b < first.outputs[o].size(); ++b)
        {
            if (first.outputs[o][b] != static_cast<char>(0xA5) || second.outputs[o][b] != static_cast<char>(0x5A))
            {
                findings.push_back(broken("memory-bounds",
                    "enqueueHost wrote byte " + std::to_string(b) + " of output " + std::to_string(o) + ", which has "
                        + std::to_string(size) + " bytes (past its end)"));
                return findings;
            }
        }
    }
    for (std::size_t i = 0; i < buffers.inputs.size(); ++i)
    {
        auto const* now = static_cast<char const*>(buffers.inputs[i]->data());
        if (!std::equal(buffers.inputBytes[i].begin(), buffers.inputBytes[i].end(), now))
        {
            findings.push_back(
                broken("memory-bounds", "enqueueHost changed input " + std::to_string(i) + ", which is read-only"));
            return findings;
        }
    }
    findings.push_back(passed("memory-bounds",
        "nothing touched past the ends of " + counted(static_cast<std::size_t>(nbInputs), "input") + ", "
            + counted(static_cast<std::size_t>(nbOutputs), "output") + " and " + std::to_string(workspace)
            + " workspace bytes; inputs unchanged"));
    return findings;
}

} // namespace kiln_tool::check_v3
