"""A HELM test model that always gives one answer (`A`, `B`, ...): closed-task scores that are not all zero, to
check an import against HELM's own scores, and no context window to cut prompts. Loaded with `--plugins`."""

from helm.clients.client import Client
from helm.common.request import GeneratedOutput, Request, RequestResult, Token


class ConstantClient(Client):
    def __init__(self, cache_config=None, answer: str = "A"):
        self.answer = answer

    def make_request(self, request: Request) -> RequestResult:
        outputs = [GeneratedOutput(text=self.answer, logprob=0.0, tokens=[Token(text=self.answer, logprob=0.0)])
                   for _ in range(request.num_completions)]
        return RequestResult(success=True, cached=False, request_time=0.0, completions=outputs, embedding=[])
