// SPDX-License-Identifier: Apache-2.0
// plugin_aot.cpp -- ahead-of-time (AOT) Python plugins. A Python plugin class that defines
//
//     get_aot_kernel(inputs, in_out, num_inputs, tactic, expr_builder) -> (name, ptx, launch, scalars)
//
// gets kiln's AOT build capability (kiln::IPluginV3AotBuild, include/kiln/plugin_aot.h): the builder calls it once,
// with the chosen formats (in_out, a list of DynamicPluginTensorDesc), the chosen tactic and the data inputs' extents
// (inputs, a list of DimsExprs whose expressions belong to expr_builder), and keeps in the engine what it returns:
// the kernel name (str), the PTX (bytes or str), the seven launch values (grid x/y/z, block x/y/z, shared memory
// bytes) and the int32 scalar arguments, each an IDimensionExpr of expr_builder. tensorrt.plugin's AotPlugin
// (kiln/plugin/_aot.py) implements it on top of aot_impl.
#include "kiln/plugin_aot.h"
#include "plugins_v3.h"

namespace kiln::python
{

using namespace nvinfer1;

namespace
{

//! One launch value or scalar argument: an IDimensionExpr of the call's builder.
IDimensionExpr const* dimensionExpr(py::handle value, std::string const& what)
{
    try
    {
        return value.cast<IDimensionExpr const*>();
    }
    catch (py::cast_error const&)
    {
        throw PluginCallProblem("Return value of get_aot_kernel() could not be interpreted: " + what + " is a "
            + std::string(py::str(py::type::of(value).attr("__name__"))) + ", not an IDimensionExpr");
    }
}

//! A handle whose plugin defines get_aot_kernel(): kiln finds its AOT build capability from its class (RTTI), as for
//! a C++ plugin that derives from kiln::IPluginV3AotBuild.
class PluginV3AotHandle final : public PluginV3Handle, public kiln::IPluginV3AotBuild
{
public:
    using PluginV3Handle::PluginV3Handle;

    APILanguage getAPILanguage() const noexcept override { return APILanguage::kPYTHON; }

    int32_t getAotKernel(DimsExprs const* inputs, DynamicPluginTensorDesc const* inOut, int32_t nbInputs,
        int32_t nbOutputs, int32_t tactic, IExprBuilder& exprBuilder, kiln::AotKernel& kernel) noexcept override
    {
        py::handle const self = mObject;
        return callPlugin([self] { return self; }, "get_aot_kernel", int32_t{-1},
            [&] {
                py::list inputList;
                for (int32_t i = 0; i < nbInputs; ++i)
                {
                    inputList.append(py::cast(inputs[i]));
                }
                py::object const builder = py::cast(&exprBuilder, py::return_value_policy::reference);
                py::object const result = mObject.attr("get_aot_kernel")(
                    inputList, dynamicDescList(inOut, nbInputs + nbOutputs), nbInputs, tactic, builder);
                if (!py::isinstance<py::tuple>(result) || py::len(result) != 4)
                {
                    throw PluginCallProblem(
                        "Return value of get_aot_kernel() could not be interpreted: expected (name, "
                        "ptx, launch values, scalar arguments)");
                }
                auto const items = py::reinterpret_borrow<py::tuple>(result);
                if (!py::isinstance<py::str>(items[0])
                    || !(py::isinstance<py::bytes>(items[1]) || py::isinstance<py::str>(items[1])))
                {
                    throw PluginCallProblem(
                        "Return value of get_aot_kernel() could not be interpreted: the name must be "
                        "a str and the PTX bytes or a str");
                }
                mName = items[0].cast<std::string>();
                mPtx = items[1].cast<std::string>();
                py::sequence const launch = items[2].cast<py::sequence>();
                if (py::len(launch) != static_cast<std::size_t>(kiln::kAOT_LAUNCH_VALUES))
                {
                    throw PluginCallProblem("Return value of get_aot_kernel() could not be interpreted: "
                        + std::to_string(py::len(launch)) + " launch values, not 7");
                }
                mScalars.clear();
                for (py::handle scalar : items[3].cast<py::sequence>())
                {
                    mScalars.push_back(dimensionExpr(scalar, "scalar argument " + std::to_string(mScalars.size())));
                }
                kernel.name = mName.c_str();
                kernel.ptx = mPtx.data();
                kernel.ptxSize = static_cast<int64_t>(mPtx.size());
                for (int32_t v = 0; v < kiln::kAOT_LAUNCH_VALUES; ++v)
                {
                    kernel.launch[v]
                        = dimensionExpr(launch[static_cast<py::size_t>(v)], "launch value " + std::to_string(v));
                }
                kernel.scalars = mScalars.data();
                kernel.nbScalars = static_cast<int32_t>(mScalars.size());
                return int32_t{0};
            });
    }

private:
    std::string mName;
    std::string mPtx;
    std::vector<IDimensionExpr const*> mScalars;
};

} // namespace

std::unique_ptr<PluginV3Handle> makeAotPluginHandle(py::object object, PyPluginV3& plugin)
{
    return std::make_unique<PluginV3AotHandle>(std::move(object), plugin);
}

} // namespace kiln::python
