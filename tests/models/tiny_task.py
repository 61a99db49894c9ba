"""A two-sample task for smoke-testing model providers from the shell, e.g.

inspect eval tests/models/tiny_task.py --model gguf/smollm2-135m --seed 42 --max-tokens 32
"""

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes
from inspect_ai.solver import generate, system_message

SYSTEM = "You are a concise assistant. Answer in one short sentence."

SAMPLES = [
    Sample(id="capital", input="What is the capital of France?", target="Paris"),
    Sample(id="colour", input="What colour is a clear daytime sky?", target="blue"),
]


@task
def tiny() -> Task:
    """Two factual questions, scored by whether the target word appears in the answer."""
    return Task(dataset=SAMPLES, solver=[system_message(SYSTEM), generate()], scorer=includes())
