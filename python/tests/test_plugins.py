# SPDX-License-Identifier: Apache-2.0
"""The plugin surface for C++ plugins: init_libnvinfer_plugins, the registry (creators of both families,
load_library), PluginField and the field collections, and plugin layers from registry creators (ROIAlign_TRT, a V3
plugin of kiln's standard library, built and run on the host backend)."""

import gc
import os

import numpy as np
import pytest

import kiln

from conftest import build_plan


@pytest.fixture
def registry(logger):
    assert kiln.init_libnvinfer_plugins(logger, "")
    return kiln.get_plugin_registry()


def test_registry_is_one_object_with_the_standard_creators(registry):
    assert kiln.get_plugin_registry() is registry
    creators = {(c.name, c.plugin_version): c for c in registry.all_creators}
    assert ("ROIAlign_TRT", "2") in creators
    assert isinstance(creators[("ROIAlign_TRT", "2")], kiln.IPluginCreatorV3One)
    assert all(isinstance(c, kiln.IPluginCreator) for c in registry.plugin_creator_list)
    assert registry.get_creator("ROIAlign_TRT", "2") is not None
    assert registry.get_creator("NoSuchPlugin", "1", "") is None
    assert registry.parent_search_enabled in (True, False)
    assert kiln.get_builder_plugin_registry(kiln.EngineCapability.STANDARD) is not None


def test_init_requires_both_arguments(logger):
    with pytest.raises(TypeError):
        kiln.init_libnvinfer_plugins(logger)


def test_plugin_field_views_its_data():
    values = np.array([3, 4], np.int32)
    field = kiln.PluginField("pads", values, kiln.PluginFieldType.INT32)
    assert (field.name, field.size, field.type) == ("pads", 2, kiln.PluginFieldType.INT32)
    np.testing.assert_array_equal(field.data, values)
    values[0] = 7
    assert field.data[0] == 7, "the field views the array without a copy"
    text = kiln.PluginField("mode", np.frombuffer(b"avg\0", np.int8), kiln.PluginFieldType.CHAR)
    assert text.data.tobytes() == b"avg\0"
    assert kiln.PluginField().name == ""
    with pytest.raises(AttributeError):
        kiln.PluginField("h", np.zeros(1, np.float16), kiln.PluginFieldType.FLOAT16).data


def test_plugin_field_collection_is_a_list_and_keeps_the_data():
    collection = kiln.PluginFieldCollection(
        [kiln.PluginField("output_height", np.array([2], np.int32), kiln.PluginFieldType.INT32)]
    )
    collection.append(kiln.PluginField("output_width", np.array([5], np.int32), kiln.PluginFieldType.INT32))
    gc.collect()
    assert len(collection) == 2
    assert [f.name for f in collection] == ["output_height", "output_width"]
    assert int(collection[1].data[0]) == 5, "the arrays of temporary fields live on in the collection"


def test_creator_field_names_is_the_c_struct(registry):
    creator = registry.get_creator("ROIAlign_TRT", "2", "")
    names = creator.field_names
    assert isinstance(names, kiln.PluginFieldCollection_)
    assert "output_height" in [names[i].name for i in range(len(names))]
    assert names[-1].name == names[len(names) - 1].name
    with pytest.raises(IndexError):
        names[len(names)]


def _roi_align_plugin(registry, height=2, width=2):
    creator = registry.get_creator("ROIAlign_TRT", "2", "")
    fields = kiln.PluginFieldCollection(
        [
            kiln.PluginField("output_height", np.array([height], np.int32), kiln.PluginFieldType.INT32),
            kiln.PluginField("output_width", np.array([width], np.int32), kiln.PluginFieldType.INT32),
        ]
    )
    plugin = creator.create_plugin("roi", fields, kiln.TensorRTPhase.BUILD)
    assert isinstance(plugin, kiln.IPluginV3)
    return plugin


def test_v3_plugin_from_the_registry_builds_and_runs(logger, registry):
    plugin = _roi_align_plugin(registry)
    core = plugin.get_capability_interface(kiln.PluginCapabilityType.CORE)
    assert (core.plugin_name, core.plugin_version, core.plugin_namespace) == ("ROIAlign_TRT", "2", "")

    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (1, 2, 4, 4))
    rois = network.add_input("rois", kiln.float32, (1, 4))
    batch = network.add_input("batch", kiln.int32, (1,))
    layer = network.add_plugin_v3([x, rois, batch], [], plugin)
    assert isinstance(layer, kiln.IPluginV3Layer) and layer.type == kiln.LayerType.PLUGIN_V3
    assert network[network.num_layers - 1] is layer
    del plugin
    gc.collect()  # the network keeps a clone of the plugin
    assert isinstance(layer.plugin, kiln.IPluginV3)
    layer.get_output(0).name = "y"
    network.mark_output(layer.get_output(0))
    engine = kiln.Runtime(logger).deserialize_cuda_engine(build_plan(builder, network))
    assert engine is not None
    feeds = {
        "x": np.full((1, 2, 4, 4), 3.0, np.float32),
        "rois": np.array([[0.0, 0.0, 3.0, 3.0]], np.float32),
        "batch": np.zeros(1, np.int32),
    }
    y = kiln.run(engine, feeds)["y"]
    assert y.shape == (1, 2, 2, 2)
    np.testing.assert_allclose(y, 3.0, rtol=1e-6)


def test_creator_refusal_gives_none(registry):
    creator = registry.get_creator("ROIAlign_TRT", "2", "")
    bad = kiln.PluginFieldCollection(
        [kiln.PluginField("sampling_ratio", np.array([-1], np.int32), kiln.PluginFieldType.INT32)]
    )
    assert creator.create_plugin("roi", bad, kiln.TensorRTPhase.BUILD) is None


LIBRARY = os.environ.get("KILN_TEST_PLUGIN_LIBRARY", "")


def _add_v2_layer(logger, creator):
    plugin = creator.create_plugin("legacy", kiln.PluginFieldCollection([]))
    assert isinstance(plugin, kiln.IPluginV2)
    assert (plugin.plugin_type, plugin.plugin_version, plugin.num_outputs) == ("LegacyV2", "1", 1)
    builder = kiln.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", kiln.float32, (2, 3))
    layer = network.add_plugin_v2(inputs=[x], plugin=plugin)
    assert isinstance(layer, kiln.IPluginV2Layer) and layer.type == kiln.LayerType.PLUGIN_V2
    assert layer.plugin.plugin_type == "LegacyV2"


@pytest.mark.skipif(not os.path.exists(LIBRARY), reason="KILN_TEST_PLUGIN_LIBRARY (tests/plugin) is not built")
def test_load_library_and_a_v2_plugin(logger, registry):
    handle = registry.load_library(LIBRARY)
    assert handle is not None
    try:
        creator = registry.get_plugin_creator("LegacyV2", "1")
        assert isinstance(creator, kiln.IPluginCreator)
        assert creator in registry.plugin_creator_list
        assert isinstance(registry.get_creator("LegacyV3", "1", ""), kiln.IPluginCreatorV3One)
        _add_v2_layer(logger, creator)
    finally:
        # The plugins (and the network's clones) run the library's code: all of them go before it is unloaded.
        gc.collect()
        registry.deregister_library(handle)
    assert registry.get_plugin_creator("LegacyV2", "1") is None


def test_load_library_failure_gives_none(registry):
    assert registry.load_library("/nonexistent/libnothing.so") is None


SELF_REGISTERING = os.environ.get("KILN_TEST_SELF_REGISTERING_LIBRARY", "")
IDENTITY_CONV_MODEL = os.environ.get("KILN_TEST_IDENTITY_CONV_MODEL", "")


@pytest.mark.skipif(not (os.path.exists(SELF_REGISTERING) and os.path.exists(IDENTITY_CONV_MODEL)),
                    reason="KILN_TEST_SELF_REGISTERING_LIBRARY (examples/onnx_identity_conv) is not built")
def test_a_library_opened_as_polygraphy_opens_it_serves_the_onnx_parser(logger, registry, rng):
    # Polygraphy's --plugins opens each library with ctypes.CDLL and nothing else: a library that registers its
    # creators as it loads is then found by the ONNX parser for the model's custom node.
    import ctypes

    ctypes.CDLL(SELF_REGISTERING)
    creator = registry.get_creator("IdentityConv", "1", "")
    assert isinstance(creator, kiln.IPluginCreatorV3One)
    builder = kiln.Builder(logger)
    network = builder.create_network(0)
    parser = kiln.OnnxParser(network, logger)
    assert parser.parse_from_file(IDENTITY_CONV_MODEL), [str(parser.get_error(i)) for i in range(parser.num_errors)]
    config = builder.create_builder_config()
    profile = builder.create_optimization_profile()
    profile.set_shape("X", (1, 3, 8, 8), (2, 3, 8, 8), (4, 3, 8, 8))
    config.add_optimization_profile(profile)
    plan = build_plan(builder, network, config)
    engine = kiln.Runtime(logger).deserialize_cuda_engine(plan)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    outputs = kiln.run(engine, {"X": x})
    np.testing.assert_array_equal(outputs["Y"], x)  # the model is an identity: a 1x1 identity convolution and the plugin
    del engine
    gc.collect()
