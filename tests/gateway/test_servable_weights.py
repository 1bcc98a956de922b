"""The bundled models' converted folders can be served by a standard server: their
config.json names the model class (`transformers serve` and vLLM refuse a config that
names none, which is what converting from GGUF leaves)."""

import json

from gateway.local_runtime import name_architecture


def folder_with(tmp_path, config):
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path


def test_a_converted_folder_without_a_class_gets_the_one_its_model_type_maps_to(tmp_path):
    folder = folder_with(tmp_path, {"model_type": "llama", "hidden_size": 576})
    assert name_architecture(folder) is True
    config = json.loads((folder / "config.json").read_text())
    assert config == {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 576}
    assert name_architecture(folder) is False  # once named, left as it is


def test_a_gemma3_text_folder_and_a_folder_that_names_its_class_or_an_unknown_type(tmp_path):
    assert name_architecture(folder_with(tmp_path, {"model_type": "gemma3_text"}))
    assert json.loads((tmp_path / "config.json").read_text())["architectures"] == ["Gemma3ForCausalLM"]
    named = {"model_type": "llama", "architectures": ["MyLlama"]}
    assert name_architecture(folder_with(tmp_path, named)) is False
    assert json.loads((tmp_path / "config.json").read_text()) == named
    assert name_architecture(folder_with(tmp_path, {"model_type": "no-such-type"})) is False
