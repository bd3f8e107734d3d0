"""HELM test models, loaded with `--plugins`: one that always gives one answer (`A`, `B`, ...): closed-task scores
that are not all zero, to check an import against HELM's own scores, and no context window to cut prompts; and a
test judge whose ratings depend on the answer it rates, so that a jury's judges can disagree about models."""

from helm.clients.client import Client
from helm.common.request import GeneratedOutput, Request, RequestResult, Token


class ConstantClient(Client):
    def __init__(self, cache_config=None, answer: str = "A"):
        self.answer = answer

    def make_request(self, request: Request) -> RequestResult:
        outputs = [GeneratedOutput(text=self.answer, logprob=0.0, tokens=[Token(text=self.answer, logprob=0.0)])
                   for _ in range(request.num_completions)]
        return RequestResult(success=True, cached=False, request_time=0.0, completions=outputs, embedding=[])


class JudgeClient(Client):
    """A HELM test judge: its reply depends on the answer it rates, read between the jury prompt's <response>
    tags (`replies` maps an answer to the reply; the answer's own text when it has none)."""

    def __init__(self, cache_config=None, replies: dict = None):
        self.replies = replies or {}

    def make_request(self, request: Request) -> RequestResult:
        prompt = request.prompt
        start, end = prompt.find("<response>"), prompt.find("</response>")
        answer = prompt[start + len("<response>"):end].strip() if 0 <= start < end else ""
        reply = self.replies.get(answer, answer)
        outputs = [GeneratedOutput(text=reply, logprob=0.0, tokens=[Token(text=reply, logprob=0.0)])
                   for _ in range(request.num_completions)]
        return RequestResult(success=True, cached=False, request_time=0.0, completions=outputs, embedding=[])
