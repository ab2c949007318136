"""History W (held out): eight weeks of Claude Code sessions on "wren", a document classifier's ML pipeline.

wren trains, evaluates and serves the document-classification model of Northwind's document intake: a PyTorch
Lightning module on a Hugging Face encoder, Hydra configs under conf/, the documents read from S3 through fsspec and
the split manifests versioned with DVC, experiment tracking in Weights & Biases, training with sbatch on the SLURM
GPU cluster (partitions, accounts, --gres, DDP over two nodes), an evaluation harness reporting macro-F1, and a
FastAPI inference service built into a Docker image, with pytest and pre-commit running ruff. Over eight sessions
values change in varied ways: the data bucket (corrected by the user), the SLURM partition (a wrong guess, then
a100, then h100 by a command-line override and later in the script), the per-GPU batch size and gradient
accumulation (two CUDA OOMs), the precision (fp32, 16-mixed, bf16-mixed after fp16 overflow), the learning rate
(3e-4, "drop it to 1e-4" after a divergence, 2e-5 for the new backbone), the warmup ("500 instead of 1000"),
max_seq_len (512 to 1024), early stopping patience, the checkpoint metric and folder, the backbone (roberta-base to
deberta-v3-base), the data version (data-v2 to data-v4), the label count (a shape mismatch), replaced tools
(tensorboard by W&B, pandas by polars, poetry by uv), the service port (corrected by the user), the documents per
request and the primary holdout split. Commands fail (an NCCL watchdog timeout, a missing s3fs, sentencepiece, a
403, a service whose tokenizer did not match its model) and are fixed, the user states rules, and the last session
ends with open work.

Written without looking at the recall code, its lexicon or the other histories (only the transcript helpers, the
benchmark runner and the file layout of history_kestrel.py were read), so it checks that recall generalises to a
coding history nobody tuned against.
"""
from harness.transcripts import Assistant, Bash, Edit, Read, Todo, User, Write

PROJECT = "wren"

SESSIONS = [
    ("wr1-scaffold", 58, [
        User("Starting wren for real, the document classifier for the intake team. Skeleton today: Hydra configs "
             "under conf/, a LightningDataModule that reads the split manifests and pulls the documents from S3 "
             "through fsspec, a roberta-base baseline, and pre-commit with ruff. We're on poetry for now."),
        Assistant("I'll read pyproject.toml first, then lay out conf/ with one group each for data, model, optim and "
                  "trainer so every value can be overridden from the command line.",
                  [Read("pyproject.toml",
                        "[tool.poetry]\nname = \"wren\"\nversion = \"0.1.0\"\n"
                        "description = \"Document classification: training, evaluation, serving\"\n"
                        "packages = [{include = \"wren\", from = \"src\"}]\n\n[tool.poetry.dependencies]\n"
                        "python = \"^3.11\"\ntorch = {version = \"2.3.1\", source = \"pytorch-cu121\"}\n"
                        "lightning = \"2.3.0\"\ntransformers = \"4.42.3\"\nhydra-core = \"1.3.2\"\n"
                        "fsspec = \"2024.6.1\"\npandas = \"2.2.2\"\npyarrow = \"16.1.0\"\ntorchmetrics = \"1.4.0\"\n"
                        "tensorboard = \"2.17.0\"\ndvc = {version = \"3.51.2\", extras = [\"s3\"]}\n\n"
                        "[tool.poetry.group.dev.dependencies]\npytest = \"8.2.2\"\npre-commit = \"3.7.1\"\n\n"
                        "[[tool.poetry.source]]\nname = \"pytorch-cu121\"\n"
                        "url = \"https://download.pytorch.org/whl/cu121\"\npriority = \"explicit\"\n"),
                   Write("conf/config.yaml",
                         "defaults:\n  - data: docs\n  - model: roberta\n  - optim: adamw\n  - trainer: default\n"
                         "  - _self_\n\nseed: 1337\nrun_name: ${model.name}-${now:%Y%m%d-%H%M}\n"),
                   Write("conf/data/docs.yaml",
                         "root: s3://wren-data/docs\nsplits_dir: data/splits\ntrain_split: train\nval_split: val\n"
                         "max_seq_len: 512\nbatch_size: 32\nnum_workers: 8\n"),
                   Write("conf/model/roberta.yaml",
                         "name: roberta\nbackbone: roberta-base\nnum_labels: 14\ndropout: 0.1\n"),
                   Write("conf/optim/adamw.yaml", "lr: 3e-4\nweight_decay: 0.01\nwarmup_steps: 1000\n"),
                   Write("conf/trainer/default.yaml",
                         "max_epochs: 10\nprecision: 32\ndevices: 1\naccumulate_grad_batches: 1\n"
                         "log_every_n_steps: 50\n"),
                   Write("src/wren/data.py",
                         "import json\nimport os\n\nimport fsspec\nimport lightning as L\n\n\n"
                         "class DocsDataModule(L.LightningDataModule):\n    def __init__(self, cfg):\n"
                         "        super().__init__()\n        self.cfg = cfg\n\n"
                         "    def _read(self, doc_id: str) -> str:\n"
                         "        with fsspec.open(f\"{self.cfg.root}/{doc_id[:2]}/{doc_id}.json\") as f:\n"
                         "            return json.load(f)[\"text\"]\n"),
                   Bash("poetry install && poetry run pytest tests/test_datamodule.py -q",
                        "Installing dependencies from lock file\n\nPackage operations: 87 installs, 0 updates, 0 "
                        "removals\n...\nInstalling the current project: wren (0.1.0)\nF..\n"
                        "=================================== FAILURES ===================================\n"
                        "___________________________ test_reads_one_document ____________________________\n"
                        "...\nE   ImportError: Install s3fs to access S3\n\n"
                        ".venv/lib/python3.11/site-packages/fsspec/registry.py:243: ImportError\n"
                        "1 failed, 2 passed in 2.31s", ok=False)]),
        Assistant("fsspec only understands s3:// URLs through the s3fs package, which isn't a dependency yet. "
                  "Adding it and running the test again.",
                  [Bash("poetry add s3fs@2024.6.1",
                        "Updating dependencies\nResolving dependencies... (412.6s)\n\nPackage operations: 3 "
                        "installs, 0 updates, 0 removals\n\n  - Installing aioitertools (0.11.0)\n"
                        "  - Installing aiobotocore (2.13.0)\n  - Installing s3fs (2024.6.1)\n\nWriting lock file"),
                   Bash("poetry run pytest tests/test_datamodule.py -q",
                        "F..\nE   PermissionError: Forbidden\n\n.venv/lib/python3.11/site-packages/s3fs/core.py:140: "
                        "PermissionError\n------------------------------ Captured log call ----------------------\n"
                        "An error occurred (403) when calling the HeadObject operation: Forbidden "
                        "(s3://wren-data/docs/0a/0a1f93c2.json)\n1 failed, 2 passed in 3.02s", ok=False)]),
        Assistant("Now it reaches S3 but gets a 403 on s3://wren-data/docs/0a/0a1f93c2.json. Either the nw-ml "
                  "profile has no read on that bucket or the documents live somewhere else. Which bucket should the "
                  "datamodule read?"),
        User("No, the bucket is s3://nw-ml-datasets/wren/. wren-data was the old prototype bucket, it's frozen and "
             "our account has no read on it anymore. Documents are under docs/ there."),
        Assistant("Pointed data.root at s3://nw-ml-datasets/wren/docs. The datamodule tests pass; the first one "
                  "reads a real document and tokenizes it to 512 tokens.",
                  [Edit("conf/data/docs.yaml", "root: s3://wren-data/docs\n", "root: s3://nw-ml-datasets/wren/docs\n"),
                   Bash("poetry run pytest tests/test_datamodule.py -q", "...\n3 passed in 4.87s")]),
        User("Where do the split manifests come from? I don't want parquet files in git."),
        Assistant("They're imported with DVC from the northwind/ml-datasets registry repo, so git only holds "
                  "data/splits.dvc and the parquet files come from the DVC remote. I imported them at the data-v2 "
                  "tag: train 182,400, val 22,800 and holdout-2024q2 22,750 documents, 14 labels in "
                  "data/splits/labels.json. After a fresh clone, `dvc pull data/splits.dvc` fetches them.",
                  [Bash("poetry run dvc import git@github.com:northwind/ml-datasets wren/splits -o data/splits "
                        "--rev data-v2",
                        "Importing 'wren/splits (git@github.com:northwind/ml-datasets)' -> 'data/splits'\n\n"
                        "To track the changes with git, run:\n\n\tgit add data/splits.dvc data/.gitignore"),
                   Bash("poetry run python scripts/split_stats.py",
                        "split              docs  labels\ntrain            182400      14\n"
                        "val               22800      14\nholdout-2024q2    22750      14")]),
        User("Good. Model: roberta-base, mean pooling, linear head. AdamW with linear warmup and decay; the numbers "
             "are already in the yaml, it's a baseline."),
        Assistant("WrenClassifier is in src/wren/model.py: the roberta-base encoder, mean pooling over the attention "
                  "mask, dropout and a linear head to num_labels; AdamW with get_linear_schedule_with_warmup driven "
                  "by optim.warmup_steps. The entry point is `python -m wren.train`, a Hydra main that builds the "
                  "datamodule, the model and a Trainer logging to a TensorBoardLogger under tb_logs/. A "
                  "fast_dev_run passes on my CPU.",
                  [Write("src/wren/model.py",
                         "class WrenClassifier(L.LightningModule):\n    def __init__(self, model_cfg, optim_cfg):\n"
                         "        super().__init__()\n        self.save_hyperparameters()\n"
                         "        self.encoder = AutoModel.from_pretrained(model_cfg.backbone)\n"
                         "        self.dropout = nn.Dropout(model_cfg.dropout)\n"
                         "        self.head = nn.Linear(self.encoder.config.hidden_size, model_cfg.num_labels)\n\n"
                         "    def configure_optimizers(self):\n        o = self.hparams.optim_cfg\n"
                         "        opt = torch.optim.AdamW(self.parameters(), lr=o.lr, weight_decay=o.weight_decay)\n"
                         "        sched = get_linear_schedule_with_warmup(opt, o.warmup_steps,\n"
                         "                                                self.trainer.estimated_stepping_batches)\n"
                         "        return [opt], [{\"scheduler\": sched, \"interval\": \"step\"}]\n"),
                   Write("src/wren/train.py",
                         "@hydra.main(config_path=\"../../conf\", config_name=\"config\", version_base=\"1.3\")\n"
                         "def main(cfg):\n    L.seed_everything(cfg.seed)\n    dm = DocsDataModule(cfg.data)\n"
                         "    model = WrenClassifier(cfg.model, cfg.optim)\n"
                         "    logger = TensorBoardLogger(\"tb_logs\", name=\"wren\")\n"
                         "    trainer = L.Trainer(**cfg.trainer, logger=logger)\n    trainer.fit(model, dm)\n"),
                   Bash("poetry run python -m wren.train trainer.fast_dev_run=true data.num_workers=0",
                        "Seed set to 1337\nGPU available: False, used: False\nRunning in `fast_dev_run` mode: will "
                        "run the requested loop using 1 batch(es). Logging and checkpointing is suppressed.\n\n"
                        "  | Name    | Type         | Params | Mode\n"
                        "-------------------------------------------------\n"
                        "0 | encoder | RobertaModel | 124 M  | eval\n1 | dropout | Dropout      | 0      | train\n"
                        "2 | head    | Linear       | 10.8 K | train\n"
                        "-------------------------------------------------\n"
                        "`Trainer.fit` stopped: `max_steps=1` reached.")]),
        User("pre-commit run --all-files"),
        Assistant("Added .pre-commit-config.yaml with ruff (lint with --fix), ruff-format, check-yaml and "
                  "end-of-file-fixer. The first run fails:",
                  [Write(".pre-commit-config.yaml",
                         "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n    rev: v0.5.0\n"
                         "    hooks:\n      - id: ruff\n        args: [--fix]\n      - id: ruff-format\n"
                         "  - repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v4.6.0\n    hooks:\n"
                         "      - id: check-yaml\n      - id: end-of-file-fixer\n"),
                   Bash("poetry run pre-commit run --all-files",
                        "ruff.....................................................................Failed\n"
                        "- hook id: ruff\n- exit code: 1\n- files were modified by this hook\n\n"
                        "src/wren/data.py:2:8: F401 [*] `os` imported but unused\n"
                        "src/wren/model.py:14:89: E501 Line too long (97 > 88)\n"
                        "Found 2 errors (1 fixed, 1 remaining).\n\n"
                        "ruff-format..............................................................Failed\n"
                        "- hook id: ruff-format\n- files were modified by this hook\n\n"
                        "2 files reformatted, 6 files left unchanged\n\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed",
                        ok=False)]),
        Assistant("ruff removed the unused os import itself and ruff-format rewrapped two files. The remaining "
                  "E501 is ruff's default limit of 88 columns; I set line-length = 100 in [tool.ruff] (the "
                  "formatter reads the same setting) and selected the E, F, I, B and UP rules. The second run is "
                  "clean.",
                  [Edit("pyproject.toml", "[tool.pytest.ini_options]\n",
                        "[tool.ruff]\nline-length = 100\ntarget-version = \"py311\"\n\n[tool.ruff.lint]\n"
                        "select = [\"E\", \"F\", \"I\", \"B\", \"UP\"]\n\n[tool.pytest.ini_options]\n"),
                   Bash("poetry run pre-commit run --all-files",
                        "ruff.....................................................................Passed\n"
                        "ruff-format..............................................................Passed\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed")]),
        User("Rule for this repo: pre-commit run --all-files has to pass before you tell me anything is done. And "
             "don't commit, ever. I review the diff and commit myself."),
        Assistant("Understood: pre-commit run --all-files passes before I call anything done, and committing is "
                  "yours. Everything from today is in the working tree, uncommitted.",
                  [Todo([("Hydra config groups: data, model, optim, trainer", "completed"),
                         ("DocsDataModule reading documents from S3 via fsspec", "completed"),
                         ("Split manifests through DVC", "completed"),
                         ("roberta-base baseline module", "completed"),
                         ("pre-commit with ruff", "completed"),
                         ("First real training run on the cluster", "pending")])]),
    ]),
    ("wr2-slurm-wandb", 51, [
        User("Time for a real run on the cluster. sbatch script: one node, 4 GPUs, DDP. Do a fast_dev_run first."),
        Assistant("Running the fast_dev_run here first to check that the environment imports and the config "
                  "composes.",
                  [Bash("hostname && poetry run python -m wren.train trainer.fast_dev_run=true",
                        "login02\nSeed set to 1337\nGPU available: False, used: False\nRunning in `fast_dev_run` "
                        "mode: will run the requested loop using 1 batch(es). Logging and checkpointing is "
                        "suppressed.\n`Trainer.fit` stopped: `max_steps=1` reached.")]),
        User("Stop. Never run anything on the login node, not even a fast_dev_run. It's shared, the admins kill "
             "anything heavy and I get the email. Smoke tests go through srun on the debug partition."),
        Assistant("Understood: nothing runs on the login node; smoke tests go through srun on the debug partition "
                  "(30 minute limit). The same fast_dev_run on a debug GPU passes. I also wrote "
                  "scripts/train.sbatch: one node, 4 tasks, DDP, logs in logs/%x-%j.out.",
                  [Bash("srun --partition=debug --gres=gpu:1 --time=00:30:00 poetry run python -m wren.train "
                        "trainer.fast_dev_run=true",
                        "srun: job 4418150 queued and waiting for resources\nsrun: job 4418150 has been allocated "
                        "resources\nSeed set to 1337\nGPU available: True (cuda), used: True\nRunning in "
                        "`fast_dev_run` mode: will run the requested loop using 1 batch(es). Logging and "
                        "checkpointing is suppressed.\n`Trainer.fit` stopped: `max_steps=1` reached."),
                   Write("scripts/train.sbatch",
                         "#!/bin/bash\n#SBATCH --job-name=wren-train\n#SBATCH --partition=gpu\n#SBATCH --nodes=1\n"
                         "#SBATCH --ntasks-per-node=4\n#SBATCH --gres=gpu:4\n#SBATCH --cpus-per-task=8\n"
                         "#SBATCH --mem=0\n#SBATCH --time=48:00:00\n#SBATCH --output=logs/%x-%j.out\n\n"
                         "source .venv/bin/activate\n"
                         "srun python -m wren.train trainer.devices=4 trainer.strategy=ddp \"$@\"\n"),
                   Bash("sbatch scripts/train.sbatch",
                        "sbatch: error: invalid partition specified: gpu\nsbatch: error: Batch job submission "
                        "failed: Invalid partition name specified", ok=False),
                   Bash("sinfo -s",
                        "PARTITION AVAIL  TIMELIMIT   NODES(A/I/O/T) NODELIST\n"
                        "debug        up      30:00        1/3/0/4 dbg[01-04]\n"
                        "cpu*         up 3-00:00:00     40/24/0/64 cpu[001-064]\n"
                        "a100         up 2-00:00:00     21/3/0/24 gpu-a[01-24]\n"
                        "h100         up 2-00:00:00     10/6/0/16 gpu-h[01-16]")]),
        Assistant("There's no partition called gpu on this cluster: sinfo lists debug, cpu (the default), a100 and "
                  "h100. Should the run go to h100? It has 6 idle nodes right now."),
        User("a100. h100 needs its own allocation and we don't have it yet, I've asked for it. And the gres needs "
             "the GPU type here: gpu:a100:4."),
        Assistant("scripts/train.sbatch now asks for --partition=a100 and --gres=gpu:a100:4. Submitted as job "
                  "4418203.",
                  [Edit("scripts/train.sbatch", "#SBATCH --partition=gpu\n", "#SBATCH --partition=a100\n"),
                   Edit("scripts/train.sbatch", "#SBATCH --gres=gpu:4\n", "#SBATCH --gres=gpu:a100:4\n"),
                   Bash("sbatch scripts/train.sbatch", "Submitted batch job 4418203")]),
        User("check on it"),
        Assistant("4418203 died in the first training step with CUDA out of memory. The A100s here are the 40GB "
                  "ones, and a per-GPU batch of 32 documents at 512 tokens in fp32 doesn't fit roberta-base's "
                  "activations. Options: mixed precision, a smaller per-GPU batch with gradient accumulation so the "
                  "effective batch stays the same, or gradient checkpointing.",
                  [Bash("sacct -j 4418203 --format=JobID,State,Elapsed,ExitCode",
                        "JobID             State    Elapsed ExitCode\n------------ ---------- ---------- --------\n"
                        "4418203          FAILED   00:03:12      1:0\n4418203.batch    FAILED   00:03:12      1:0\n"
                        "4418203.0        FAILED   00:03:05      1:0"),
                   Bash("tail -n 5 logs/wren-train-4418203.out",
                        "Epoch 0:   0%|          | 0/1425 [00:00<?, ?it/s]\n[rank0]: Traceback (most recent call "
                        "last):\n[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. "
                        "GPU 0 has a total capacity of 39.39 GiB of which 1.07 GiB is free. Including non-PyTorch "
                        "memory, this process has 38.31 GiB memory in use.\n"
                        "srun: error: gpu-a07: tasks 0-3: Exited with exit code 1", ok=False)]),
        User("16-mixed, batch 16, accumulate 2. The effective batch stays 128."),
        Assistant("precision: 16-mixed and accumulate_grad_batches: 2 in conf/trainer/default.yaml, batch_size: 16 "
                  "in conf/data/docs.yaml. Resubmitted as 4418260; it is past step 400 at about 24GB per GPU.",
                  [Edit("conf/trainer/default.yaml", "precision: 32\n", "precision: 16-mixed\n"),
                   Edit("conf/trainer/default.yaml", "accumulate_grad_batches: 1\n", "accumulate_grad_batches: 2\n"),
                   Edit("conf/data/docs.yaml", "batch_size: 32\n", "batch_size: 16\n"),
                   Bash("sbatch scripts/train.sbatch", "Submitted batch job 4418260"),
                   Bash("srun --jobid=4418260 --overlap nvidia-smi --query-gpu=memory.used --format=csv",
                        "memory.used [MiB]\n24310 MiB\n24188 MiB\n24402 MiB\n24277 MiB")]),
        User("The tensorboard logs sit on the cluster and I can't look at them from my laptop. Move tracking to "
             "Weights & Biases: project wren, entity northwind-ml. Take tensorboard out completely."),
        Assistant("Runs log to W&B now, under northwind-ml/wren, with the resolved Hydra config as the run config. "
                  "tensorboard is removed from pyproject.toml and TensorBoardLogger from train.py. The job already "
                  "running (4418260) still writes tensorboard files; the next submission uses W&B. Both poetry "
                  "resolutions took over eight minutes each, which is the torch source again.",
                  [Bash("poetry add wandb@0.17.4 && poetry remove tensorboard",
                        "Updating dependencies\nResolving dependencies... (538.2s)\n\nPackage operations: 6 "
                        "installs, 0 updates, 0 removals\n\n  - Installing wandb (0.17.4)\n\nWriting lock file\n"
                        "Updating dependencies\nResolving dependencies... (497.0s)\n\nPackage operations: 0 "
                        "installs, 0 updates, 3 removals\n\n  - Removing tensorboard (2.17.0)\n"
                        "  - Removing tensorboard-data-server (0.7.2)\n  - Removing werkzeug (3.0.3)\n\n"
                        "Writing lock file"),
                   Edit("src/wren/train.py", "    logger = TensorBoardLogger(\"tb_logs\", name=\"wren\")\n",
                        "    logger = WandbLogger(project=\"wren\", entity=\"northwind-ml\", name=cfg.run_name,\n"
                        "                         log_model=False)\n"
                        "    logger.experiment.config.update(OmegaConf.to_container(cfg, resolve=True))\n")]),
        User("And a hard rule while we're at it: never log raw documents to W&B. Not in tables, not as sample "
             "predictions, not inside artifacts. Legal signed off on doc ids, labels and scores leaving our AWS "
             "account, nothing else."),
        Assistant("Understood: no document text goes to W&B in any form, only doc ids, labels, scores, metrics and "
                  "config. Right now the logger sends metrics and config only. I added tests/test_wandb_payload.py, "
                  "which wraps the logger and fails if anything logged carries a text field.",
                  [Write("tests/test_wandb_payload.py",
                         "def test_nothing_logged_carries_document_text(fake_wandb, tiny_run):\n"
                         "    tiny_run()\n    for payload in fake_wandb.logged:\n"
                         "        assert not {\"text\", \"document\", \"body\"} & set(_keys(payload))\n"),
                   Bash("poetry run pytest tests/test_wandb_payload.py -q", ".\n1 passed in 6.12s")]),
        User("Where do the checkpoints end up?"),
        Assistant("ModelCheckpoint writes to /scratch/$USER/wren/ckpt/<job id>: last.ckpt plus the best one by "
                  "validation loss.",
                  [Read("src/wren/train.py",
                        "    job_id = os.environ.get(\"SLURM_JOB_ID\", \"local\")\n"
                        "    ckpt = ModelCheckpoint(dirpath=f\"/scratch/{os.environ['USER']}/wren/ckpt/{job_id}\",\n"
                        "                           monitor=\"val/loss\", save_last=True, filename=\"best\")\n")]),
        User("Scratch gets purged after 14 days, we'd lose everything. Checkpoints go to "
             "/shared/ml/wren/checkpoints/<job id>."),
        Assistant("Checkpoints go to /shared/ml/wren/checkpoints/<job id> from the next job on. 4418260 still "
                  "writes to scratch; I'll copy its checkpoints over when it finishes. pre-commit passes.",
                  [Edit("src/wren/train.py",
                        "    ckpt = ModelCheckpoint(dirpath=f\"/scratch/{os.environ['USER']}/wren/ckpt/{job_id}\",\n"
                        "                           monitor=\"val/loss\", save_last=True, filename=\"best\")\n",
                        "    ckpt = ModelCheckpoint(dirpath=f\"/shared/ml/wren/checkpoints/{job_id}\", "
                        "monitor=\"val/loss\",\n                           save_last=True, filename=\"best\")\n"),
                   Bash("poetry run pre-commit run --all-files",
                        "ruff.....................................................................Passed\n"
                        "ruff-format..............................................................Passed\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed")]),
    ]),
    ("wr3-eval-harness", 44, [
        User("4418260 finished overnight. I need an eval harness: load a checkpoint, run it on a split, macro-F1 "
             "and per-class F1, predictions saved as parquet."),
        Assistant("Copied 4418260's checkpoints from scratch to /shared/ml/wren/checkpoints/4418260 first. The "
                  "harness is `python -m wren.eval` with conf/eval.yaml (ckpt is required, split defaults to "
                  "holdout-2024q2): torchmetrics' MulticlassF1Score with average=\"macro\", and predictions "
                  "written to /shared/ml/wren/eval/<job id>/<split>.parquet. The first run fails on the checkpoint:",
                  [Bash("rsync -a /scratch/$USER/wren/ckpt/4418260/ /shared/ml/wren/checkpoints/4418260/ && "
                        "ls /shared/ml/wren/checkpoints/4418260", "best.ckpt\nlast.ckpt"),
                   Write("conf/eval.yaml",
                         "defaults:\n  - config\n  - _self_\n\nckpt: ???\nsplit: holdout-2024q2\n"
                         "eval_batch_size: 64\nout_dir: /shared/ml/wren/eval\n"),
                   Write("src/wren/eval.py",
                         "@hydra.main(config_path=\"../../conf\", config_name=\"eval\", version_base=\"1.3\")\n"
                         "def main(cfg):\n    labels = load_labels(cfg.data.splits_dir)\n"
                         "    model = WrenClassifier(cfg.model, cfg.optim, num_labels=len(labels))\n"
                         "    model.load_state_dict(torch.load(cfg.ckpt)[\"state_dict\"])\n"
                         "    f1 = MulticlassF1Score(num_classes=len(labels), average=\"macro\")\n"),
                   Bash("srun --partition=debug --gres=gpu:1 --time=00:30:00 poetry run python -m wren.eval "
                        "ckpt=/shared/ml/wren/checkpoints/4418260/best.ckpt",
                        "Traceback (most recent call last):\n  File \"src/wren/eval.py\", line 24, in main\n"
                        "    model.load_state_dict(torch.load(cfg.ckpt)[\"state_dict\"])\n"
                        "RuntimeError: Error(s) in loading state_dict for WrenClassifier:\n"
                        "\tsize mismatch for head.weight: copying a param with shape torch.Size([14, 768]) from "
                        "checkpoint, the shape in current model is torch.Size([17, 768]).\n"
                        "\tsize mismatch for head.bias: copying a param with shape torch.Size([14]) from "
                        "checkpoint, the shape in current model is torch.Size([17]).", ok=False),
                   Bash("git log --oneline -3 -- data/splits.dvc && python -c \"import json; "
                        "print(json.load(open('data/splits/labels.json'))[-4:])\"",
                        "e41c0d2 data: bump wren splits to data-v3 (invoice split in four)\n"
                        "7a9b1f4 data: import wren splits at data-v2\n"
                        "['invoice', 'credit_note', 'receipt', 'purchase_order']")]),
        Assistant("The checkpoint has a 14-way head and eval built a 17-way one: eval sizes the model from the "
                  "current data/splits/labels.json, and data/splits.dvc moved to data-v3 after 4418260 started. "
                  "data-v3 splits invoice into invoice, credit_note, receipt and purchase_order. So this checkpoint "
                  "can't be scored on the current holdout at all. I'd have the module save its label names in the "
                  "checkpoint, and have eval rebuild the model with load_from_checkpoint and refuse a split whose "
                  "labels differ, instead of sizing it from whatever file is there."),
        User("Yes, do that. Retrain on the 17 classes. And num_labels comes from labels.json, never hard-coded in "
             "the yaml again."),
        Assistant("num_labels is gone from conf/model/roberta.yaml; train.py passes the datamodule's label names to "
                  "WrenClassifier, which stores them with save_hyperparameters, so the head has 17 classes and "
                  "every checkpoint knows its labels. eval.py uses WrenClassifier.load_from_checkpoint and raises "
                  "if the checkpoint's labels differ from the split's. Tests pass; training resubmitted as 4421302.",
                  [Edit("conf/model/roberta.yaml", "num_labels: 14\n", ""),
                   Edit("src/wren/model.py",
                        "        self.head = nn.Linear(self.encoder.config.hidden_size, model_cfg.num_labels)\n",
                        "        self.head = nn.Linear(self.encoder.config.hidden_size, len(labels))\n"),
                   Edit("src/wren/eval.py",
                        "    model = WrenClassifier(cfg.model, cfg.optim, num_labels=len(labels))\n"
                        "    model.load_state_dict(torch.load(cfg.ckpt)[\"state_dict\"])\n",
                        "    model = WrenClassifier.load_from_checkpoint(cfg.ckpt)\n"
                        "    if list(model.hparams.labels) != labels:\n"
                        "        raise ValueError(f\"checkpoint labels {model.hparams.labels} != split labels\")\n"),
                   Bash("poetry run pytest -q", "..........\n10 passed in 14.02s"),
                   Bash("sbatch scripts/train.sbatch", "Submitted batch job 4421302")]),
        User("4421302 looks weird in W&B, the loss shoots up late in the first epoch."),
        Assistant("The loss climbs from about optimizer step 1,000, where warmup reaches the peak learning rate of "
                  "3e-4, and is nan from step 1,140 on. 3e-4 is high for "
                  "fine-tuning all of roberta-base (the usual range is 1e-5 to 1e-4), and nothing clips the "
                  "gradients.",
                  [Bash("grep -m1 'train/loss=nan' logs/wren-train-4421302.out",
                        "Epoch 0:  80%|████████  | 2280/2850 [26:02<06:30, 1.46it/s, train/loss=nan, "
                        "v_num=1302]")]),
        User("drop the learning rate from 3e-4 to 1e-4 and clip gradients at 1.0, then resubmit"),
        Assistant("lr: 1e-4 in conf/optim/adamw.yaml and gradient_clip_val: 1.0 in conf/trainer/default.yaml. "
                  "Cancelled 4421302 and resubmitted as 4421577.",
                  [Edit("conf/optim/adamw.yaml", "lr: 3e-4\n", "lr: 1e-4\n"),
                   Edit("conf/trainer/default.yaml", "log_every_n_steps: 50\n",
                        "log_every_n_steps: 50\ngradient_clip_val: 1.0\n"),
                   Bash("scancel 4421302 && sbatch scripts/train.sbatch", "Submitted batch job 4421577")]),
        User("4421577 is done. Evaluate it, with the per-class breakdown."),
        Assistant("macro-F1 0.781 on holdout-2024q2 (accuracy 0.874). The weak classes are the new ones: receipt "
                  "0.52, purchase_order 0.58, then contract 0.66. The per-class report is slow though: "
                  "scripts/report.py reads every eval parquet with pandas and took 1:52 and 11.8 GB of RAM.",
                  [Bash("srun --partition=debug --gres=gpu:1 --time=00:30:00 poetry run python -m wren.eval "
                        "ckpt=/shared/ml/wren/checkpoints/4421577/best.ckpt",
                        "Restoring states from the checkpoint path at /shared/ml/wren/checkpoints/4421577/best.ckpt\n"
                        "Testing DataLoader 0: 100%|██████████| 356/356 [02:41<00:00,  2.20it/s]\n"
                        "split=holdout-2024q2 docs=22750 macro_f1=0.781 accuracy=0.874\n"
                        "wrote /shared/ml/wren/eval/4421577/holdout-2024q2.parquet"),
                   Bash("/usr/bin/time -v poetry run python scripts/report.py /shared/ml/wren/eval --by-class "
                        "2>&1 | grep -E 'receipt|purchase_order|contract |Elapsed|Maximum resident'",
                        "receipt            0.52     1214\npurchase_order     0.58      890\n"
                        "contract           0.66     2410\n"
                        "\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:52.40\n"
                        "\tMaximum resident set size (kbytes): 11834120")]),
        User("Two minutes and 12 GB for a report is exactly the kind of thing that gets me emails. Rewrite it with "
             "polars, lazily, and take pandas out of the project."),
        Assistant("scripts/report.py uses polars now: pl.scan_parquet over the eval folder, filtering and grouping "
                  "lazily, so only the label and prediction columns are read. Same numbers, 6.8 seconds and 1.2 GB. "
                  "pandas is removed from pyproject.toml; nothing else imported it.",
                  [Edit("scripts/report.py", "import pandas as pd\n", "import polars as pl\n"),
                   Edit("scripts/report.py",
                        "    df = pd.concat(pd.read_parquet(p) for p in Path(root).glob(\"*/*.parquet\"))\n"
                        "    per_class = df.groupby(\"label\").apply(_f1)\n",
                        "    lf = pl.scan_parquet(f\"{root}/*/*.parquet\").select(\"run\", \"label\", \"pred\")\n"
                        "    per_class = lf.group_by(\"label\").agg(_f1_expr()).sort(\"label\").collect()\n"),
                   Bash("poetry remove pandas && poetry add polars@1.1.0",
                        "Updating dependencies\nResolving dependencies... (471.9s)\n\nPackage operations: 0 "
                        "installs, 0 updates, 1 removal\n\n  - Removing pandas (2.2.2)\n\nWriting lock file\n"
                        "Updating dependencies\nResolving dependencies... (502.3s)\n\nPackage operations: 1 "
                        "install, 0 updates, 0 removals\n\n  - Installing polars (1.1.0)\n\nWriting lock file"),
                   Bash("/usr/bin/time -v poetry run python scripts/report.py /shared/ml/wren/eval --by-class "
                        "2>&1 | grep -E 'Elapsed|Maximum resident'",
                        "\tElapsed (wall clock) time (h:mm:ss or m:ss): 0:06.81\n"
                        "\tMaximum resident set size (kbytes): 1236480")]),
        User("Also pick checkpoints on val/macro_f1, not val/loss. On this run the loss kept improving for two "
             "more epochs while the rare classes got worse. Add early stopping on the same metric."),
        Assistant("ModelCheckpoint monitors val/macro_f1 with mode max now, and EarlyStopping watches the same "
                  "metric with patience=3.",
                  [Edit("src/wren/train.py",
                        "    ckpt = ModelCheckpoint(dirpath=f\"/shared/ml/wren/checkpoints/{job_id}\", "
                        "monitor=\"val/loss\",\n                           save_last=True, filename=\"best\")\n",
                        "    ckpt = ModelCheckpoint(dirpath=f\"/shared/ml/wren/checkpoints/{job_id}\",\n"
                        "                           monitor=\"val/macro_f1\", mode=\"max\", save_last=True, "
                        "filename=\"best\")\n"
                        "    stop = EarlyStopping(monitor=\"val/macro_f1\", mode=\"max\", patience=3)\n")]),
        User("Could we put the misclassified examples into W&B so I can browse them?"),
        Assistant("Within the no-raw-documents rule, yes: eval now logs a wandb.Table of the misclassified holdout "
                  "documents with doc_id, true label, predicted label and score, and no text column. To read one, "
                  "`poetry run python scripts/show_doc.py <doc_id>` fetches it from S3 on your side. The payload "
                  "test covers the table too; tests and pre-commit pass.",
                  [Edit("src/wren/eval.py", "    log_metrics(run, metrics)\n",
                        "    log_metrics(run, metrics)\n"
                        "    wrong = preds.filter(pl.col(\"label\") != pl.col(\"pred\"))\n"
                        "    run.log({\"misclassified\": wandb.Table(dataframe=wrong.select(\n"
                        "        \"doc_id\", \"label\", \"pred\", \"score\").to_pandas())})\n"),
                   Bash("poetry run pytest -q && poetry run pre-commit run --all-files",
                        "...........\n11 passed in 15.40s\n"
                        "ruff.....................................................................Passed\n"
                        "ruff-format..............................................................Passed\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed")]),
        User("to_pandas()? We just took pandas out."),
        Assistant("Right, that would import pandas at runtime; it only passed because pandas is still in the venv "
                  "as a leftover. wandb.Table takes columns and rows directly, so it's built from the polars rows "
                  "now, and `poetry install --sync` removed the stray pandas from the venv. Tests pass.",
                  [Edit("src/wren/eval.py",
                        "    run.log({\"misclassified\": wandb.Table(dataframe=wrong.select(\n"
                        "        \"doc_id\", \"label\", \"pred\", \"score\").to_pandas())})\n",
                        "    cols = [\"doc_id\", \"label\", \"pred\", \"score\"]\n"
                        "    rows = wrong.select(cols).rows()\n"
                        "    run.log({\"misclassified\": wandb.Table(columns=cols, data=rows)})\n"),
                   Bash("poetry install --sync && poetry run pytest -q",
                        "Installing dependencies from lock file\n\nPackage operations: 0 installs, 0 updates, 3 "
                        "removals\n\n  - Removing pandas (2.2.2)\n  - Removing pytz (2024.1)\n"
                        "  - Removing tzdata (2024.1)\n...........\n11 passed in 15.12s")]),
    ]),
    ("wr4-multinode-h100", 37, [
        User("A run takes 19 hours on 4 A100s. Let's go to two nodes, 8 GPUs."),
        Assistant("The script asks for --nodes=2 now, and the srun line takes devices and num_nodes from SLURM's "
                  "variables instead of a hard-coded 4. Submitted as 4430112.",
                  [Edit("scripts/train.sbatch", "#SBATCH --nodes=1\n", "#SBATCH --nodes=2\n"),
                   Edit("scripts/train.sbatch",
                        "srun python -m wren.train trainer.devices=4 trainer.strategy=ddp \"$@\"\n",
                        "srun python -m wren.train trainer.devices=$SLURM_NTASKS_PER_NODE "
                        "trainer.num_nodes=$SLURM_NNODES \\\n    trainer.strategy=ddp \"$@\"\n"),
                   Bash("sbatch scripts/train.sbatch", "Submitted batch job 4430112")]),
        User("It's been sitting at 0 steps for half an hour."),
        Assistant("It's dead: all 8 ranks start, then the very first all-reduce (SeqNum=1) never completes and the "
                  "NCCL watchdog kills it after its 30 minute timeout. I'll rerun a 20-step job with NCCL_DEBUG=INFO "
                  "to see which network NCCL picks.",
                  [Bash("tail -n 6 logs/wren-train-4430112.out",
                        "Initializing distributed: GLOBAL_RANK: 5, MEMBER: 6/8\n"
                        "[rank5]:[E ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught collective operation "
                        "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) "
                        "ran for 1800081 milliseconds before timing out.\n"
                        "[rank5]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 5] Timeout at NCCL work: 1, last "
                        "enqueued NCCL work: 1, last completed NCCL work: -1.\n"
                        "terminate called after throwing an instance of 'c10::DistBackendError'\n"
                        "srun: error: gpu-a12: tasks 4-7: Aborted (core dumped)", ok=False),
                   Bash("sbatch --time=00:20:00 --export=ALL,NCCL_DEBUG=INFO scripts/train.sbatch "
                        "trainer.max_steps=20 && sleep 240 && grep -m4 -E 'NCCL INFO (Bootstrap|NET)' "
                        "logs/wren-train-4430165.out",
                        "Submitted batch job 4430165\n"
                        "gpu-a03:412:412 [0] NCCL INFO Bootstrap : Using docker0:172.17.0.1<0>\n"
                        "gpu-a03:412:412 [0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1<0> "
                        "[1]eth0:10.20.3.3<0>\n"
                        "gpu-a12:388:388 [0] NCCL INFO Bootstrap : Using docker0:172.17.0.1<0>\n"
                        "gpu-a12:388:388 [0] NCCL INFO NET/Socket : Using [0]docker0:172.17.0.1<0> "
                        "[1]eth0:10.20.3.12<0>")]),
        Assistant("NCCL bootstraps over docker0, the Docker bridge, which has the same address 172.17.0.1 on every "
                  "node, so each node's ranks end up talking to themselves and the cross-node all-reduce waits "
                  "forever. Pinning NCCL to the InfiniBand interface with NCCL_SOCKET_IFNAME=ib0 fixes it: the "
                  "20-step job bootstraps on ib0, uses the mlx5 IB devices and finishes. The full run is 4430215.",
                  [Edit("scripts/train.sbatch", "source .venv/bin/activate\n",
                        "source .venv/bin/activate\n"
                        "# NCCL otherwise bootstraps over docker0 (172.17.0.1 on every node) and hangs\n"
                        "export NCCL_SOCKET_IFNAME=ib0\n"),
                   Bash("sbatch --time=00:20:00 --export=ALL,NCCL_DEBUG=INFO scripts/train.sbatch "
                        "trainer.max_steps=20 && sleep 240 && grep -m2 -E 'NCCL INFO (Bootstrap|NET/IB)' "
                        "logs/wren-train-4430190.out && tail -n1 logs/wren-train-4430190.out",
                        "Submitted batch job 4430190\n"
                        "gpu-a03:512:512 [0] NCCL INFO Bootstrap : Using ib0:10.30.3.3<0>\n"
                        "gpu-a03:512:512 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB "
                        "ib0:10.30.3.3<0>\n`Trainer.fit` stopped: `max_steps=20` reached."),
                   Bash("sbatch scripts/train.sbatch", "Submitted batch job 4430215")]),
        User("With 8 GPUs the effective batch is 256 and an epoch has half the steps, so warmup eats most of the "
             "first epoch. Make warmup 500 steps instead of 1000, and restart it."),
        Assistant("warmup_steps: 500 in conf/optim/adamw.yaml. Cancelled 4430215 and resubmitted as 4430231.",
                  [Edit("conf/optim/adamw.yaml", "warmup_steps: 1000\n", "warmup_steps: 500\n"),
                   Bash("scancel 4430215 && sbatch scripts/train.sbatch", "Submitted batch job 4430231")]),
        User("4430231 stopped at epoch 5 and F1 was still creeping up. Early stopping is too eager, give it "
             "patience 5."),
        Assistant("It stopped after three epochs without a new best (best 0.788 at epoch 2), while the curve in W&B "
                  "was still inching up by a few thousandths an epoch. EarlyStopping has patience=5 now.",
                  [Bash("grep -m1 'did not improve' logs/wren-train-4430231.out",
                        "Monitored metric val/macro_f1 did not improve in the last 3 records. Best score: 0.788. "
                        "Signaling Trainer to stop."),
                   Edit("src/wren/train.py",
                        "    stop = EarlyStopping(monitor=\"val/macro_f1\", mode=\"max\", patience=3)\n",
                        "    stop = EarlyStopping(monitor=\"val/macro_f1\", mode=\"max\", patience=5)\n")]),
        User("Good news, the h100 allocation came through: 2,000 GPU-hours this quarter. Send the next run there, "
             "one node with 8 H100s. Leave the script alone for now, just override on the command line."),
        Assistant("Rejected by the scheduler:",
                  [Bash("sbatch --partition=h100 --nodes=1 --ntasks-per-node=8 --gres=gpu:h100:8 "
                        "scripts/train.sbatch",
                        "sbatch: error: Batch job submission failed: Invalid account or account/partition "
                        "combination specified", ok=False),
                   Bash("sacctmgr -n show assoc user=$USER format=account%16,partition%10",
                        "           nw-ml\n      nw-ml-h100       h100")]),
        Assistant("Our default account nw-ml isn't allowed on the h100 partition; sacctmgr shows a second "
                  "association, nw-ml-h100, limited to h100. Is that the new allocation?"),
        User("yes, nw-ml-h100. And it's only for training runs; evals and debugging stay off it."),
        Assistant("Submitted with --partition=h100 --account=nw-ml-h100 as 4431044, on gpu-h05. An epoch takes "
                  "about 1h50 there against 3h10 on the two A100 nodes. The script itself still says a100, so every "
                  "H100 run needs these flags on the command line for now.",
                  [Bash("sbatch --partition=h100 --account=nw-ml-h100 --nodes=1 --ntasks-per-node=8 "
                        "--gres=gpu:h100:8 scripts/train.sbatch",
                        "Submitted batch job 4431044"),
                   Bash("squeue -j 4431044 -o '%.10i %.9P %.8T %.10M %R'",
                        "     JOBID PARTITION    STATE       TIME NODELIST(REASON)\n"
                        "   4431044      h100  RUNNING      12:41 gpu-h05")]),
        User("4431044 finished. Number?"),
        Assistant("macro-F1 0.792 on holdout-2024q2 (accuracy 0.881), up from 0.781. receipt is at 0.61 now, "
                  "contract still at 0.66. pre-commit passes.",
                  [Bash("srun --partition=debug --gres=gpu:1 --time=00:30:00 poetry run python -m wren.eval "
                        "ckpt=/shared/ml/wren/checkpoints/4431044/best.ckpt",
                        "Testing DataLoader 0: 100%|██████████| 356/356 [02:38<00:00,  2.25it/s]\n"
                        "split=holdout-2024q2 docs=22750 macro_f1=0.792 accuracy=0.881\n"
                        "wrote /shared/ml/wren/eval/4431044/holdout-2024q2.parquet"),
                   Bash("poetry run pre-commit run --all-files",
                        "ruff.....................................................................Passed\n"
                        "ruff-format..............................................................Passed\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed"),
                   Todo([("Two-node DDP on a100", "completed"),
                         ("Fix NCCL hang (NCCL_SOCKET_IFNAME=ib0)", "completed"),
                         ("Warmup 500 steps, early stopping patience 5", "completed"),
                         ("First run on the h100 partition", "completed"),
                         ("Inference service (FastAPI + Docker)", "pending")])]),
    ]),
    ("wr5-uv-serving", 30, [
        User("Poetry took nine minutes to lock again this morning, every time it's the torch source. I'm done "
             "with it: move us to uv."),
        Assistant("pyproject.toml is a standard [project] table now, the dev tools are in a dev dependency group "
                  "and torch comes from the cu121 index through [tool.uv.sources], pinned to that index only. "
                  "poetry.lock is gone; uv lock resolved 148 packages in 6.42s. CI and the README use uv sync and "
                  "uv run instead of poetry install and poetry run. The sbatch script only activates .venv, so it "
                  "didn't change. Tests pass under uv.",
                  [Edit("pyproject.toml",
                        "[tool.poetry]\nname = \"wren\"\nversion = \"0.1.0\"\n",
                        "[project]\nname = \"wren\"\nversion = \"0.1.0\"\nrequires-python = \">=3.11,<3.12\"\n"
                        "dependencies = [\n    \"torch==2.3.1\",\n    \"lightning==2.3.0\",\n"
                        "    \"transformers==4.42.3\",\n    \"hydra-core==1.3.2\",\n    \"s3fs==2024.6.1\",\n"
                        "    \"polars==1.1.0\",\n    \"wandb==0.17.4\",\n    \"dvc[s3]==3.51.2\",\n]\n\n"
                        "[dependency-groups]\ndev = [\"pytest==8.2.2\", \"pre-commit==3.7.1\"]\n\n"
                        "[tool.uv.sources]\ntorch = { index = \"pytorch-cu121\" }\n\n[[tool.uv.index]]\n"
                        "name = \"pytorch-cu121\"\nurl = \"https://download.pytorch.org/whl/cu121\"\n"
                        "explicit = true\n"),
                   Bash("rm poetry.lock && uv lock && uv sync",
                        "Using CPython 3.11.9\nResolved 148 packages in 6.42s\nPrepared 148 packages in 41.08s\n"
                        "Installed 148 packages in 1.93s\n + lightning==2.3.0\n + polars==1.1.0\n"
                        " + torch==2.3.1+cu121\n + wandb==0.17.4\n ..."),
                   Edit(".github/workflows/ci.yml",
                        "      - run: pipx install poetry==1.8.3\n      - run: poetry install\n"
                        "      - run: poetry run pytest -q\n",
                        "      - uses: astral-sh/setup-uv@v2\n      - run: uv sync --frozen\n"
                        "      - run: uv run pytest -q\n"),
                   Edit("README.md", "poetry install\npoetry run pytest\n", "uv sync\nuv run pytest\n"),
                   Bash("uv run pytest -q", "...........\n11 passed in 13.77s")]),
        User("From now on dependencies only go in through uv add / uv remove. Never pip install into the venv and "
             "never hand-edit uv.lock."),
        Assistant("Understood: dependency changes only through uv add and uv remove, uv.lock is never edited by "
                  "hand, and nothing gets pip-installed into .venv."),
        User("Now the inference service. FastAPI, POST /v1/classify takes a list of {doc_id, text} and returns a "
             "label and score per doc. The model comes from the W&B registry, wren-classifier:production, never "
             "from a local path."),
        Assistant("The service is src/wren/serve/app.py. At startup it downloads the "
                  "northwind-ml/model-registry/wren-classifier:production artifact and loads the checkpoint from "
                  "it; /v1/classify tokenizes the batch, runs it under torch.inference_mode and returns doc_id, "
                  "label and score per document. More than MAX_DOCS_PER_REQUEST = 64 documents get a 413. FastAPI "
                  "and uvicorn are in an optional serve extra. Locally it runs with `uv run --extra serve uvicorn "
                  "wren.serve.app:app --port 8080`. The Docker image builds, but it's 9.61GB: uv sync installs the "
                  "cu121 torch wheel with all the nvidia-* CUDA libraries.",
                  [Bash("uv add --optional serve fastapi==0.111.0 \"uvicorn[standard]==0.30.1\"",
                        "Resolved 161 packages in 2.08s\nPrepared 9 packages in 1.12s\nInstalled 9 packages in 24ms\n"
                        " + fastapi==0.111.0\n + uvicorn==0.30.1\n ..."),
                   Write("src/wren/serve/app.py",
                         "MAX_DOCS_PER_REQUEST = 64\nREGISTRY = \"northwind-ml/model-registry/wren-classifier:"
                         "production\"\n\napp = FastAPI(title=\"wren\")\n\n\n@app.on_event(\"startup\")\n"
                         "def load() -> None:\n    path = wandb.Api().artifact(REGISTRY).download()\n"
                         "    state.model = WrenClassifier.load_from_checkpoint(f\"{path}/best.ckpt\").eval()\n"
                         "    state.tokenizer = AutoTokenizer.from_pretrained(\"roberta-base\")\n\n\n"
                         "@app.post(\"/v1/classify\")\ndef classify(req: ClassifyRequest) -> ClassifyResponse:\n"
                         "    if len(req.docs) > MAX_DOCS_PER_REQUEST:\n"
                         "        raise HTTPException(413, f\"at most {MAX_DOCS_PER_REQUEST} documents per request\")\n"
                         "    enc = state.tokenizer([d.text for d in req.docs], truncation=True, max_length=512,\n"
                         "                          padding=True, return_tensors=\"pt\")\n"),
                   Write("serve/Dockerfile",
                         "FROM python:3.11-slim\nCOPY --from=ghcr.io/astral-sh/uv:0.2.24 /uv /usr/local/bin/uv\n"
                         "WORKDIR /app\nCOPY pyproject.toml uv.lock ./\n"
                         "RUN uv sync --frozen --no-dev --extra serve\nCOPY src/ src/\nEXPOSE 8080\n"
                         "CMD [\"uvicorn\", \"wren.serve.app:app\", \"--host\", \"0.0.0.0\", \"--port\", \"8080\"]\n"),
                   Bash("docker build -q -t wren-serve:dev -f serve/Dockerfile . && docker images wren-serve:dev",
                        "sha256:3f9c2a7d1e04b6d2c8e1f0a9b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8\n"
                        "REPOSITORY   TAG   IMAGE ID       CREATED          SIZE\n"
                        "wren-serve   dev   3f9c2a7d1e04   12 seconds ago   9.61GB")]),
        User("The serving nodes are CPU only, use the CPU torch wheels in the image. And the platform ingress "
             "expects port 8000 for every ML service, not 8080."),
        Assistant("The image installs everything from uv.lock except torch, then torch==2.3.1 from the CPU wheel "
                  "index; it listens on 8000 (EXPOSE and the uvicorn CMD). The first container didn't start, "
                  "though: uv export leaves out the project itself, so `wren` wasn't importable.",
                  [Edit("serve/Dockerfile", "RUN uv sync --frozen --no-dev --extra serve\n",
                        "RUN uv export --frozen --no-dev --extra serve --no-emit-project --no-emit-package torch \\\n"
                        "      -o /tmp/req.txt \\\n && uv pip install --system -r /tmp/req.txt \\\n"
                        " && uv pip install --system torch==2.3.1 --index-url https://download.pytorch.org/whl/cpu\n"),
                   Edit("serve/Dockerfile",
                        "EXPOSE 8080\n"
                        "CMD [\"uvicorn\", \"wren.serve.app:app\", \"--host\", \"0.0.0.0\", \"--port\", \"8080\"]\n",
                        "EXPOSE 8000\n"
                        "CMD [\"uvicorn\", \"wren.serve.app:app\", \"--host\", \"0.0.0.0\", \"--port\", \"8000\"]\n"),
                   Bash("docker build -q -t wren-serve:dev -f serve/Dockerfile . && docker run -d --rm -p 8000:8000 "
                        "-e WANDB_API_KEY --name wren-serve wren-serve:dev && sleep 15 && docker logs wren-serve",
                        "sha256:8b1e44f0c2d9a7e6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2\n"
                        "5d7c0f2e9a41\nTraceback (most recent call last):\n  File \"/usr/local/bin/uvicorn\", "
                        "line 8, in <module>\n...\nModuleNotFoundError: No module named 'wren'", ok=False)]),
        Assistant("Installing the project itself (without dependencies) after the source copy fixes it. The image "
                  "is 1.27GB, the service starts on port 8000 and classifies the two fixture documents.",
                  [Edit("serve/Dockerfile", "COPY src/ src/\n",
                        "COPY src/ src/\nRUN uv pip install --system --no-deps .\n"),
                   Bash("docker build -q -t wren-serve:dev -f serve/Dockerfile . && docker images wren-serve:dev "
                        "--format '{{.Size}}' && docker run -d --rm -p 8000:8000 -e WANDB_API_KEY --name wren-serve "
                        "wren-serve:dev && sleep 20 && curl -s -X POST localhost:8000/v1/classify "
                        "-H 'content-type: application/json' -d @tests/fixtures/classify_two.json",
                        "sha256:c4a9e1d07b3f5e2a1c0d9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e\n1.27GB\n"
                        "e91b3a7c20d4\n{\"predictions\":[{\"doc_id\":\"d-001\",\"label\":\"invoice\",\"score\":0.971},"
                        "{\"doc_id\":\"d-002\",\"label\":\"contract\",\"score\":0.884}]}")]),
        User("And the service never logs request bodies. Only request id, doc_id, label, score and latency. Same "
             "reason as the W&B rule."),
        Assistant("The access log middleware now writes only request id, doc_id, label, score and latency per "
                  "document, never the text. tests/test_serve.py checks that, plus the 413 above 64 documents, "
                  "with FastAPI's TestClient and a tiny model. Tests and pre-commit pass.",
                  [Write("tests/test_serve.py",
                         "def test_too_many_docs_is_413(client):\n"
                         "    docs = [{\"doc_id\": f\"d-{i}\", \"text\": \"x\"} for i in range(65)]\n"
                         "    assert client.post(\"/v1/classify\", json={\"docs\": docs}).status_code == 413\n\n\n"
                         "def test_log_has_no_text(client, caplog):\n"
                         "    client.post(\"/v1/classify\", json={\"docs\": [{\"doc_id\": \"d-1\", \"text\": "
                         "\"SECRET BODY\"}]})\n    assert \"SECRET BODY\" not in caplog.text\n"),
                   Bash("uv run pytest -q && uv run pre-commit run --all-files",
                        ".............\n13 passed in 16.20s\n"
                        "ruff.....................................................................Passed\n"
                        "ruff-format..............................................................Passed\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed")]),
    ]),
    ("wr6-deberta-v4", 22, [
        User("data-v4 is out: the labelling team relabelled the long contracts that were ending up as 'other'. "
             "Update the splits. Then I want to try deberta-v3-base; the error analysis says we're losing on long "
             "documents."),
        Assistant("Updated the DVC import to data-v4: train 191,250, val 23,900, holdout-2024q2 23,910, still 17 "
                  "labels. On token lengths: 38.2% of training documents are longer than 512 tokens and get "
                  "truncated at max_seq_len 512; at 1024 it would be 17.9%.",
                  [Bash("uv run dvc update --rev data-v4 data/splits.dvc",
                        "Updating 'data/splits' (git@github.com:northwind/ml-datasets)\n\n"
                        "To track the changes with git, run:\n\n\tgit add data/splits.dvc"),
                   Bash("uv run python scripts/split_stats.py && uv run python scripts/token_lengths.py "
                        "--split train",
                        "split              docs  labels\ntrain            191250      17\n"
                        "val               23900      17\nholdout-2024q2    23910      17\n"
                        "p50=388 p90=1710 p99=6120 share>512=38.2% share>1024=17.9%")]),
        User("Go to 1024. deberta as a new model config, and make it the default."),
        Assistant("conf/model/deberta.yaml with backbone microsoft/deberta-v3-base is the default in "
                  "conf/config.yaml now, and max_seq_len: 1024. The fast_dev_run on a debug GPU fails on the "
                  "tokenizer: deberta-v3's tokenizer is a SentencePiece model and the sentencepiece package isn't "
                  "installed.",
                  [Write("conf/model/deberta.yaml", "name: deberta\nbackbone: microsoft/deberta-v3-base\n"
                                                    "dropout: 0.1\n"),
                   Edit("conf/config.yaml", "  - model: roberta\n", "  - model: deberta\n"),
                   Edit("conf/data/docs.yaml", "max_seq_len: 512\n", "max_seq_len: 1024\n"),
                   Bash("srun --partition=debug --gres=gpu:1 --time=00:30:00 uv run python -m wren.train "
                        "trainer.fast_dev_run=true",
                        "Seed set to 1337\nTraceback (most recent call last):\n...\nValueError: Couldn't "
                        "instantiate the backend tokenizer from one of: \n(1) a `tokenizers` library serialization "
                        "file, \n(2) a slow tokenizer instance to convert or \n(3) an equivalent slow tokenizer "
                        "class to instantiate and convert. \nYou need to have sentencepiece installed to convert a "
                        "slow tokenizer to a fast one.", ok=False),
                   Bash("uv add sentencepiece==0.2.0",
                        "Resolved 162 packages in 1.12s\nPrepared 1 package in 310ms\nInstalled 1 package in 4ms\n"
                        " + sentencepiece==0.2.0"),
                   Bash("srun --partition=debug --gres=gpu:1 --time=00:30:00 uv run python -m wren.train "
                        "trainer.fast_dev_run=true",
                        "Seed set to 1337\nGPU available: True (cuda), used: True\n"
                        "  | Name    | Type           | Params | Mode\n"
                        "0 | encoder | DebertaV2Model | 183 M  | eval\n"
                        "`Trainer.fit` stopped: `max_steps=1` reached.")]),
        User("Full run on the h100s."),
        Assistant("4440310 ran out of memory on the first step. deberta's disentangled attention at 1024 tokens "
                  "needs far more memory than roberta at 512, and 16 documents per GPU don't fit in 80GB. Halving "
                  "the per-GPU batch and doubling accumulation keeps the effective batch at 256: batch_size: 8, "
                  "accumulate_grad_batches: 4. Resubmitted as 4440388.",
                  [Bash("sbatch --partition=h100 --account=nw-ml-h100 --nodes=1 --ntasks-per-node=8 "
                        "--gres=gpu:h100:8 scripts/train.sbatch", "Submitted batch job 4440310"),
                   Bash("tail -n 3 logs/wren-train-4440310.out",
                        "Epoch 0:   0%|          | 0/1495 [00:00<?, ?it/s]\n[rank5]: torch.OutOfMemoryError: CUDA "
                        "out of memory. Tried to allocate 3.00 GiB. GPU 5 has a total capacity of 79.11 GiB of "
                        "which 2.41 GiB is free. Including non-PyTorch memory, this process has 76.68 GiB memory "
                        "in use.\nsrun: error: gpu-h09: tasks 0-7: Exited with exit code 1", ok=False),
                   Edit("conf/data/docs.yaml", "batch_size: 16\n", "batch_size: 8\n"),
                   Edit("conf/trainer/default.yaml", "accumulate_grad_batches: 2\n", "accumulate_grad_batches: 4\n"),
                   Bash("sbatch --partition=h100 --account=nw-ml-h100 --nodes=1 --ntasks-per-node=8 "
                        "--gres=gpu:h100:8 scripts/train.sbatch", "Submitted batch job 4440388")]),
        User("W&B shows nan loss for 4440388 from the start."),
        Assistant("Yes, train/loss is nan within the first 30 steps. deberta-v3 overflows in fp16: its attention "
                  "scores exceed fp16's range and the GradScaler can't save that. The H100s support bf16, which "
                  "has fp32's exponent range, so precision: bf16-mixed should fix it with no loss scaler at all.",
                  [Bash("grep -m1 'train/loss=nan' logs/wren-train-4440388.out",
                        "Epoch 0:   1%|          | 31/2989 [00:41<1:06:10, 0.75it/s, train/loss=nan, v_num=0388]")]),
        User("Do bf16. And deberta wants a much smaller learning rate than roberta: use 2e-5."),
        Assistant("precision: bf16-mixed in conf/trainer/default.yaml and lr: 2e-5 in conf/optim/adamw.yaml. "
                  "Resubmitted as 4440421; the loss is finite and falling after 400 steps.",
                  [Edit("conf/trainer/default.yaml", "precision: 16-mixed\n", "precision: bf16-mixed\n"),
                   Edit("conf/optim/adamw.yaml", "lr: 1e-4\n", "lr: 2e-5\n"),
                   Bash("scancel 4440388 && sbatch --partition=h100 --account=nw-ml-h100 --nodes=1 "
                        "--ntasks-per-node=8 --gres=gpu:h100:8 scripts/train.sbatch", "Submitted batch job 4440421"),
                   Bash("tail -c 160 logs/wren-train-4440421.out",
                        "Epoch 0:  14%|█▎        | 412/2989 [09:31<59:34, 0.72it/s, train/loss=1.12, v_num=0421]")]),
        User("I'm tired of typing the h100 flags. Put them in the script."),
        Assistant("scripts/train.sbatch now asks for --partition=h100, --account=nw-ml-h100, one node, 8 tasks and "
                  "--gres=gpu:h100:8, so a plain `sbatch scripts/train.sbatch` goes to the H100s. "
                  "NCCL_SOCKET_IFNAME=ib0 stays: harmless on one node, needed if we go multi-node again.",
                  [Edit("scripts/train.sbatch",
                        "#SBATCH --partition=a100\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=4\n"
                        "#SBATCH --gres=gpu:a100:4\n",
                        "#SBATCH --partition=h100\n#SBATCH --account=nw-ml-h100\n#SBATCH --nodes=1\n"
                        "#SBATCH --ntasks-per-node=8\n#SBATCH --gres=gpu:h100:8\n")]),
        User("4440421 finished. How does it compare?"),
        Assistant("deberta (4440421) gets macro-F1 0.812 on the data-v4 holdout; the last roberta run (4431044) "
                  "scored on the same holdout gets 0.790. Most of the gain is in long documents: contract goes "
                  "from 0.66 to 0.79 and other from 0.71 to 0.80. Evals ran on the debug partition, not h100.",
                  [Bash("for j in 4431044 4440421; do srun --partition=debug --gres=gpu:1 --time=00:30:00 uv run "
                        "python -m wren.eval ckpt=/shared/ml/wren/checkpoints/$j/best.ckpt | grep macro_f1; done",
                        "split=holdout-2024q2 docs=23910 macro_f1=0.790 accuracy=0.880\n"
                        "split=holdout-2024q2 docs=23910 macro_f1=0.812 accuracy=0.893"),
                   Bash("uv run python scripts/report.py /shared/ml/wren/eval --by-class --runs 4431044,4440421 "
                        "| grep -E '^(class|contract|other) '",
                        "class            4431044  4440421\ncontract            0.66     0.79\n"
                        "other               0.71     0.80")]),
        User("Fine, deberta it is. Keep conf/model/roberta.yaml around for comparison runs, but deberta is the "
             "default."),
        Assistant("deberta stays the default in conf/config.yaml and roberta.yaml stays for comparisons "
                  "(model=roberta on the command line). pre-commit passes; nothing is committed.",
                  [Bash("uv run pre-commit run --all-files",
                        "ruff.....................................................................Passed\n"
                        "ruff-format..............................................................Passed\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed"),
                   Todo([("Update splits to data-v4", "completed"),
                         ("deberta-v3-base model config, default", "completed"),
                         ("max_seq_len 1024, batch 8 x accumulate 4", "completed"),
                         ("bf16-mixed for deberta", "completed"),
                         ("h100 flags in scripts/train.sbatch", "completed")])]),
    ]),
    ("wr7-serve-tokenizer", 14, [
        User("I promoted 4440421 to wren-classifier:production in the registry on Monday. Support says the service "
             "has been calling half the contracts 'other' since. Look into it."),
        Assistant("Scoring the holdout through a local container of the service confirms it: macro-F1 0.214, with "
                  "'other' predicted for 41.7% of documents. The cause is in app.py: the service hard-codes the "
                  "roberta-base tokenizer and max_length=512. The deberta model gets roberta token ids, which mean "
                  "nothing to its embedding table, and would be cut at 512 tokens anyway.",
                  [Bash("uv run python scripts/eval_service.py --url http://localhost:8000 --split holdout-2024q2",
                        "sent 23910 docs in 748 requests\nsplit=holdout-2024q2 macro_f1=0.214 accuracy=0.402\n"
                        "label 'other' predicted for 41.7% of docs (expected 6.2%)"),
                   Read("src/wren/serve/app.py",
                        "    state.tokenizer = AutoTokenizer.from_pretrained(\"roberta-base\")\n...\n"
                        "    enc = state.tokenizer([d.text for d in req.docs], truncation=True, max_length=512,\n")]),
        User("Fix it so this can't happen again: the service must use whatever the checkpoint was trained with."),
        Assistant("Training now saves the tokenizer next to the checkpoint and the model artifact carries it; the "
                  "service loads the tokenizer from the artifact and takes max_length from the checkpoint's "
                  "max_seq_len hyperparameter, so nothing about the model is hard-coded in serving any more. For "
                  "4440421, which predates this, I logged a new artifact version with its tokenizer files. "
                  "tests/test_serve_tokenizer.py fails if the serving tokenizer or max_length differ from the "
                  "checkpoint's. Through the service the holdout now scores 0.809 against 0.812 offline.",
                  [Edit("src/wren/serve/app.py",
                        "    state.tokenizer = AutoTokenizer.from_pretrained(\"roberta-base\")\n",
                        "    state.tokenizer = AutoTokenizer.from_pretrained(f\"{path}/tokenizer\")\n"
                        "    state.max_length = state.model.hparams.max_seq_len\n"),
                   Edit("src/wren/serve/app.py", "truncation=True, max_length=512,\n",
                        "truncation=True, max_length=state.max_length,\n"),
                   Edit("src/wren/train.py", "    trainer.fit(model, dm)\n",
                        "    trainer.fit(model, dm)\n"
                        "    dm.tokenizer.save_pretrained(f\"/shared/ml/wren/checkpoints/{job_id}/tokenizer\")\n"),
                   Write("tests/test_serve_tokenizer.py",
                         "def test_serving_tokenizer_matches_checkpoint(tiny_artifact, client):\n"
                         "    trained = AutoTokenizer.from_pretrained(tiny_artifact / \"tokenizer\")\n"
                         "    assert state.tokenizer.name_or_path.endswith(\"tokenizer\")\n"
                         "    assert state.tokenizer.vocab == trained.vocab\n"
                         "    assert state.max_length == tiny_artifact.hparams[\"max_seq_len\"]\n"),
                   Bash("uv run pytest -q", "...............\n15 passed in 18.91s"),
                   Bash("uv run python scripts/eval_service.py --url http://localhost:8000 --split holdout-2024q2",
                        "sent 23910 docs in 748 requests\nsplit=holdout-2024q2 macro_f1=0.809 accuracy=0.891\n"
                        "label 'other' predicted for 6.4% of docs (expected 6.2%)")]),
        User("New rule: nothing gets the :production alias unless the service-level eval is within 0.01 macro-F1 "
             "of the offline number for the same checkpoint. Put that in docs/releasing.md."),
        Assistant("Written down in docs/releasing.md, with the commands for both numbers.",
                  [Write("docs/releasing.md",
                         "# Releasing a model\n\n1. Offline: `uv run python -m wren.eval ckpt=<best.ckpt>` on the "
                         "primary holdout.\n2. Service: run the image with the candidate artifact and `uv run python "
                         "scripts/eval_service.py --url http://localhost:8000`.\n3. Only move the :production "
                         "alias if the service number is within 0.01 macro-F1 of the offline number for the same "
                         "checkpoint.\n")]),
        User("The platform team says p95 on /v1/classify is 2.9s and their gateway times out at 3s. Cap requests "
             "at 32 documents."),
        Assistant("MAX_DOCS_PER_REQUEST = 32 now; 33 documents get a 413 and the test says so. With 32-document "
                  "requests the load test shows p50 0.61s and p95 1.38s.",
                  [Edit("src/wren/serve/app.py", "MAX_DOCS_PER_REQUEST = 64\n", "MAX_DOCS_PER_REQUEST = 32\n"),
                   Edit("tests/test_serve.py", "for i in range(65)]\n", "for i in range(33)]\n"),
                   Bash("uv run python scripts/load_test.py --url http://localhost:8000 --docs-per-request 32 "
                        "--duration 120",
                        "requests=1840 errors=0 p50=0.61s p95=1.38s p99=1.71s")]),
        User("One more: from now on the primary number is holdout-2024q3, it came with data-v4. q2 stays as a "
             "secondary check."),
        Assistant("conf/eval.yaml defaults to split: holdout-2024q3 now; q2 is still available with "
                  "split=holdout-2024q2. 4440421 scores 0.804 on holdout-2024q3. Tests and pre-commit pass.",
                  [Edit("conf/eval.yaml", "split: holdout-2024q2\n", "split: holdout-2024q3\n"),
                   Bash("srun --partition=debug --gres=gpu:1 --time=00:30:00 uv run python -m wren.eval "
                        "ckpt=/shared/ml/wren/checkpoints/4440421/best.ckpt",
                        "split=holdout-2024q3 docs=24480 macro_f1=0.804 accuracy=0.889"),
                   Bash("uv run pytest -q && uv run pre-commit run --all-files",
                        "...............\n15 passed in 18.40s\n"
                        "ruff.....................................................................Passed\n"
                        "ruff-format..............................................................Passed\n"
                        "check yaml...............................................................Passed\n"
                        "fix end of files.........................................................Passed")]),
    ]),
    ("wr8-nightly-eval", 6, [
        User("Nightly eval: every night at 03:00, evaluate whatever is wren-classifier:production on "
             "holdout-2024q3 and log macro-F1 to W&B as job type nightly-eval. On the cluster, not a cron on my "
             "laptop. No GPU hours for this, use the cpu partition."),
        Assistant("scripts/nightly_eval.sh runs the eval on the :production artifact on CPU, and a scrontab entry "
                  "runs it at 03:00 on the cpu partition with 32 cores. scron jobs don't get my login environment, "
                  "so I tested it with sbatch --export=NONE, and it fails reading the documents: no AWS "
                  "credentials.",
                  [Write("scripts/nightly_eval.sh",
                         "#!/bin/bash\nset -euo pipefail\ncd /shared/ml/wren/repo\n"
                         "uv run python -m wren.eval ckpt=wandb:wren-classifier:production split=holdout-2024q3 \\\n"
                         "    trainer.accelerator=cpu wandb.job_type=nightly-eval\n"),
                   Bash("scrontab -l",
                        "#SCRON --partition=cpu\n#SCRON --cpus-per-task=32\n#SCRON --time=02:00:00\n"
                        "#SCRON --job-name=wren-nightly-eval\n0 3 * * * /shared/ml/wren/repo/scripts/nightly_eval.sh"),
                   Bash("sbatch --export=NONE --partition=cpu --cpus-per-task=32 --time=02:00:00 --wait "
                        "scripts/nightly_eval.sh; tail -n 2 slurm-4452208.out",
                        "Submitted batch job 4452208\nsbatch: error: Batch job 4452208 failed with exit code 1\n"
                        "  File \".venv/lib/python3.11/site-packages/s3fs/core.py\", line 514, in set_session\n"
                        "botocore.exceptions.NoCredentialsError: Unable to locate credentials", ok=False)]),
        Assistant("My shell gets AWS_PROFILE=nw-ml from ~/.bashrc, which batch jobs with an empty environment "
                  "never read. The script exports AWS_PROFILE=nw-ml itself now; W&B reads ~/.netrc, which works "
                  "without the environment. The test run passes in 41 minutes and logs macro-F1 0.804.",
                  [Edit("scripts/nightly_eval.sh", "set -euo pipefail\n",
                        "set -euo pipefail\n# scron jobs start without the login environment\n"
                        "export AWS_PROFILE=nw-ml\n"),
                   Bash("sbatch --export=NONE --partition=cpu --cpus-per-task=32 --time=02:00:00 --wait "
                        "scripts/nightly_eval.sh; tail -n 2 slurm-4452291.out",
                        "Submitted batch job 4452291\n"
                        "split=holdout-2024q3 docs=24480 macro_f1=0.804 accuracy=0.889 elapsed=41m02s\n"
                        "wandb: Synced nightly-eval-4452291: https://wandb.ai/northwind-ml/wren/runs/n8k2q4x1")]),
        User("Next I want a learning-rate sweep for deberta with Hydra multirun: 1e-5, 2e-5 and 3e-5. Not today, "
             "the h100 queue is full until the weekend. Put it on the list."),
        Assistant("On the list: Hydra multirun over optim.lr=1e-5,2e-5,3e-5 on h100, one job per value."),
        User("Support wants to use the scores as thresholds, and they're overconfident: 0.97 on wrong answers. "
             "How bad is it?"),
        Assistant("Measured on holdout-2024q3: expected calibration error 0.081 over 15 bins, and the mean "
                  "confidence on wrong predictions is 0.91. Temperature scaling fitted on val would be the usual "
                  "first fix, before support builds thresholds on these scores.",
                  [Bash("uv run python scripts/calibration.py --eval /shared/ml/wren/eval/4440421/holdout-2024q3"
                        ".parquet",
                        "ECE=0.081 (15 bins)\nmean confidence: correct=0.95 wrong=0.91")]),
        User("Do that next time. And the platform team asks if we can get CPU latency down further; look at an "
             "ONNX export then too. I'm off for the week, what's open?"),
        Assistant("Nothing is committed: the nightly eval script and the scrontab entry are in place, the rest of "
                  "today is in the working tree for you to review. Open: temperature scaling fitted on val before "
                  "support uses the scores as thresholds (ECE 0.081 now); the Hydra multirun lr sweep for deberta "
                  "(1e-5, 2e-5, 3e-5) on h100 once the queue frees up; an ONNX export of the deberta model for the "
                  "CPU service, compared on p95; an alert when the nightly macro-F1 drops more than 0.01 below the "
                  "release number; and a check of data-v5's class balance when the labelling team ships it.",
                  [Todo([("Nightly eval of :production on holdout-2024q3 via scrontab", "completed"),
                         ("AWS_PROFILE in the nightly job", "completed"),
                         ("Temperature scaling fitted on val before support uses scores as thresholds", "pending"),
                         ("LR sweep for deberta with Hydra multirun (1e-5, 2e-5, 3e-5) on h100", "pending"),
                         ("ONNX export of the deberta model for the CPU service; compare p95", "pending"),
                         ("Alert when nightly macro-F1 drops more than 0.01 below the release number", "pending"),
                         ("Check data-v5 class balance when the labelling team ships it", "pending")])]),
    ]),
]

# (question, answers (any one found counts), stale values that must never be shown as current)
QUESTIONS = [
    ("Which S3 bucket are the training documents read from?", ["s3://nw-ml-datasets/wren"],
     ["root: s3://wren-data/docs"]),
    ("Why don't we read from the wren-data bucket anymore?", ["old prototype bucket"], []),
    ("The datamodule test died with an ImportError about S3. What was missing?", ["s3fs"], []),
    ("How do I get the split parquet files after cloning the repo?", ["dvc pull data/splits.dvc"], []),
    ("Which version of the labelled splits are we on?", ["data-v4"], ["--rev data-v2"]),
    ("How many classes does the model predict?", ["17 classes", "still 17 labels"], ["num_labels: 14"]),
    ("Why did evaluating the first checkpoint fail with a size mismatch?",
     ["torch.Size([14, 768])", "invoice split in four"], []),
    ("Where is the number of labels supposed to come from?", ["labels.json"], []),
    ("Which pretrained encoder does the classifier use now?", ["deberta-v3-base"], ["backbone: roberta-base"]),
    ("Why did we try a different backbone?", ["losing on long documents", "38.2%"], []),
    ("What learning rate are we training with?", ["lr: 2e-5"], ["lr: 1e-4", "lr: 3e-4"]),
    ("Why was the learning rate cut the first time?", ["clip gradients at 1.0", "3e-4 is high for fine-tuning"], []),
    ("How long is the LR warmup?", ["warmup_steps: 500"], ["warmup_steps: 1000"]),
    ("What's the batch size per GPU?", ["batch_size: 8"], ["batch_size: 16", "batch_size: 32"]),
    ("How many batches do we accumulate gradients over?", ["accumulate_grad_batches: 4"],
     ["accumulate_grad_batches: 2"]),
    ("What's the max sequence length for training?", ["max_seq_len: 1024"], ["max_seq_len: 512"]),
    ("What precision does training use?", ["bf16-mixed"], ["precision: 16-mixed"]),
    ("Why did we stop training in fp16?", ["overflows in fp16", "fp32's exponent range"], []),
    ("The first cluster run ran out of GPU memory. How was that solved?",
     ["16-mixed, batch 16, accumulate 2", "precision: 16-mixed"], []),
    ("Which SLURM partition do training jobs go to?", ["--partition=h100"], ["--partition=a100", "--partition=gpu"]),
    ("Which SLURM account do I need for the H100s?", ["nw-ml-h100"], []),
    ("How do I start a full training run on the cluster?", ["sbatch scripts/train.sbatch"], []),
    ("Can I just do a quick test run on the login node?", ["Never run anything on the login node"], []),
    ("How do I get a GPU for a quick smoke test?", ["srun --partition=debug --gres=gpu:1"], []),
    ("The two-node job hung and then died with a watchdog timeout. What fixed it?", ["NCCL_SOCKET_IFNAME=ib0"],
     []),
    ("Why did NCCL hang across nodes?", ["docker0"], []),
    ("Where are checkpoints written?", ["/shared/ml/wren/checkpoints"], ["/scratch/$USER/wren/ckpt"]),
    ("Why not keep checkpoints on scratch?", ["purged after 14 days"], []),
    ("Which metric decides the best checkpoint?", ["val/macro_f1"], ["monitor=\"val/loss\""]),
    ("Why don't we pick checkpoints by validation loss?", ["rare classes got worse"], []),
    ("How patient is early stopping?", ["patience=5"], ["patience=3"]),
    ("What do we track experiments with?", ["WandbLogger", "Weights & Biases"], ["TensorBoardLogger"]),
    ("Why did we get rid of tensorboard?", ["can't look at them from my laptop"], []),
    ("Which W&B entity do runs go to?", ["northwind-ml"], []),
    ("Is it OK to put a few example documents in a W&B table?", ["never log raw documents to W&B"], []),
    ("How can I look at misclassified examples?", ["scripts/show_doc.py", "wandb.Table of the misclassified"], []),
    ("What dataframe library do the reports use?", ["polars"], ["import pandas as pd"]),
    ("Why did the report script move away from pandas?", ["11834120", "1:52", "12 GB"], []),
    ("How do I evaluate a checkpoint?", ["python -m wren.eval"], []),
    ("Which holdout split is the headline number?", ["split: holdout-2024q3"], ["split: holdout-2024q2"]),
    ("What macro-F1 does the deberta model get offline?", ["0.812"], []),
    ("What manages our Python dependencies?", ["uv lock", "uv sync"], ["poetry install"]),
    ("Why did we leave poetry?", ["nine minutes to lock", "torch source"], []),
    ("How am I supposed to add a new package?", ["uv add"], []),
    ("How do I run the test suite?", ["uv run pytest"], ["poetry run pytest"]),
    ("What has to pass before something counts as done?", ["pre-commit run --all-files"], []),
    ("What line length does ruff enforce?", ["line-length = 100"], []),
    ("Will you commit the changes for me?", ["don't commit", "Nothing is committed"], []),
    ("How do I run the inference service locally?", ["uvicorn wren.serve.app:app", "wren.serve.app:app"], []),
    ("Which port does the inference container listen on?", ["EXPOSE 8000", "port 8000"],
     ["EXPOSE 8080", "--port 8080"]),
    ("Why was the serving image so large at first?", ["9.61GB", "nvidia-* CUDA libraries"], []),
    ("How does the service image avoid the CUDA build of torch?", ["download.pytorch.org/whl/cpu"], []),
    ("Where does the service load its model from?", ["wren-classifier:production"], []),
    ("How many documents can I send in one classify call?", ["MAX_DOCS_PER_REQUEST = 32"],
     ["MAX_DOCS_PER_REQUEST = 64"]),
    ("Why was the per-request document cap lowered?", ["times out at 3s", "p95 on /v1/classify is 2.9s"], []),
    ("What may the service write to its logs?", ["never logs request bodies", "request id, doc_id, label, score"],
     []),
    ("Why was the service labelling contracts as other after the promotion?",
     ["hard-codes the roberta-base tokenizer", "roberta token ids"], []),
    ("What has to be true before a model is promoted to production?", ["within 0.01 macro-F1"], []),
    ("Why did the deberta tokenizer fail to load?", ["sentencepiece"], []),
    ("How is the nightly evaluation scheduled?", ["scrontab", "0 3 * * *"], []),
    ("Why did the nightly eval fail when we first tried it?", ["NoCredentialsError", "AWS_PROFILE=nw-ml"], []),
    ("Which partition does the nightly eval run on?", ["--partition=cpu", "#SCRON --partition=cpu"], []),
    ("How badly calibrated are the model's scores?", ["ECE=0.081", "ECE 0.081"], []),
    ("What's left to do?", ["temperature scaling", "ONNX", "multirun"], []),
]

# What the next session's start must hold: the latest decisions and the open TODOs; and values it must not present
# as current (a line holding one is fine only when it says the memory was replaced).
BRIEF = {
    "holds": [("lr: 2e-5", "use 2e-5"), ("max_seq_len: 1024", "Go to 1024"),
              ("deberta-v3-base",), ("MAX_DOCS_PER_REQUEST = 32", "Cap requests at 32 documents"),
              ("Temperature scaling", "ONNX", "multirun")],
    "stale": ["lr: 1e-4", "lr: 3e-4", "batch_size: 16", "max_seq_len: 512", "--partition=a100",
              "precision: 16-mixed", "TensorBoardLogger", "backbone: roberta-base", "MAX_DOCS_PER_REQUEST = 64",
              "EXPOSE 8080", "root: s3://wren-data/docs", "warmup_steps: 1000", "import pandas as pd",
              "poetry run pytest"],
}
