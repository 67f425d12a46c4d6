"""
The peers of the ingestion benchmark (bench/ingestionPeers.bench.ts), run in a virtual environment of
their own: LlamaIndex (in memory, nothing persisted) and LangChain's splitters into an embedded Chroma
(persisted under a temporary folder; one add() per file, or batched across files).

Reads a JSON request on stdin: {"stack": ..., "files": [paths], "warm": [paths]} and prints one JSON
line: the MB of input, the process CPU-seconds and wall seconds of ingesting `files` (after `warm`
went the same way in the same process), the chunks made, and the CPU-seconds and MB of text spent in
the hashed embedder, so the caller can put every stack on the same embedder cost.
"""
import json
import math
import os
import re
import shutil
import sys
import tempfile
import time

import numpy as np

DIMENSIONS = 384
WORD = re.compile(r"\w+", re.UNICODE)


class Stats:
    def __init__(self):
        self.embed_cpu = 0.0
        self.embed_mb = 0.0


def hashed_vectors(texts, stats):
    """Word, word-bigram and character 3-5-gram features, signed-hashed and L2-normalised (as ours)."""
    started = time.process_time()
    vectors = []
    for text in texts:
        counts = {}
        words = [word.lower() for word in WORD.findall(text)]
        for index, word in enumerate(words):
            key = hash("w:" + word)
            counts[key] = counts.get(key, 0.0) + 1.0
            if index + 1 < len(words):
                key = hash("b:" + word + " " + words[index + 1])
                counts[key] = counts.get(key, 0.0) + 0.6
            for size in (3, 4, 5):
                for start in range(len(word) - size + 1):
                    key = hash("c:" + word[start : start + size])
                    counts[key] = counts.get(key, 0.0) + 0.25
        vector = np.zeros(DIMENSIONS, dtype=np.float32)
        for key, weight in counts.items():
            vector[key % DIMENSIONS] += (1.0 if key & 1 else -1.0) * (1.0 + math.log(weight))
        norm = float(np.linalg.norm(vector))
        if norm > 0:
            vector /= norm
        vectors.append(vector.tolist())
    stats.embed_cpu += time.process_time() - started
    stats.embed_mb += sum(len(text.encode("utf-8")) for text in texts) / 1e6
    return vectors


def read(path):
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8", errors="replace")


def llamaindex(stats):
    from llama_index.core import Document, VectorStoreIndex
    from llama_index.core.embeddings import BaseEmbedding
    from llama_index.core.node_parser import HTMLNodeParser, MarkdownNodeParser

    class HashedEmbedding(BaseEmbedding):
        def _get_text_embedding(self, text):
            return hashed_vectors([text], stats)[0]

        def _get_text_embeddings(self, texts):
            return hashed_vectors(texts, stats)

        def _get_query_embedding(self, query):
            return hashed_vectors([query], stats)[0]

        async def _aget_query_embedding(self, query):
            return hashed_vectors([query], stats)[0]

    markdown, html = MarkdownNodeParser(), HTMLNodeParser()
    index = VectorStoreIndex([], embed_model=HashedEmbedding(embed_batch_size=256))

    def ingest(paths):
        chunks = 0
        for path in paths:
            parser = html if path.endswith(".html") else markdown
            nodes = parser.get_nodes_from_documents([Document(text=read(path))])
            index.insert_nodes(nodes)
            chunks += len(nodes)
        return chunks

    return ingest, lambda: None


def chroma(stats, batched):
    import chromadb
    from langchain_text_splitters import (
        HTMLHeaderTextSplitter,
        MarkdownHeaderTextSplitter,
        RecursiveCharacterTextSplitter,
    )

    folder = tempfile.mkdtemp(prefix="bench-chroma-")
    client = chromadb.PersistentClient(path=folder)
    collection = client.create_collection("bench", embedding_function=None)
    headers = [("#", "h1"), ("##", "h2"), ("###", "h3")]
    markdown = MarkdownHeaderTextSplitter(headers_to_split_on=headers)
    html = HTMLHeaderTextSplitter(headers_to_split_on=[("h1", "h1"), ("h2", "h2"), ("h3", "h3")])
    sizes = RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=0)
    pending = {"ids": [], "documents": []}
    counter = [0]

    def flush():
        if pending["ids"]:
            collection.add(
                ids=pending["ids"],
                documents=pending["documents"],
                embeddings=hashed_vectors(pending["documents"], stats),
            )
            pending["ids"], pending["documents"] = [], []

    def ingest(paths):
        chunks = 0
        for path in paths:
            splitter = html if path.endswith(".html") else markdown
            pieces = sizes.split_documents(splitter.split_text(read(path)))
            for piece in pieces:
                counter[0] += 1
                pending["ids"].append(str(counter[0]))
                pending["documents"].append(piece.page_content)
            chunks += len(pieces)
            if not batched or len(pending["ids"]) >= 4000:
                flush()
        flush()
        return chunks

    return ingest, lambda: shutil.rmtree(folder, ignore_errors=True)


def main():
    request = json.load(sys.stdin)
    stats = Stats()
    stack = request["stack"]
    if stack == "llamaindex":
        ingest, close = llamaindex(stats)
    elif stack == "chroma":
        ingest, close = chroma(stats, batched=False)
    elif stack == "chroma-batched":
        ingest, close = chroma(stats, batched=True)
    else:
        raise SystemExit("unknown stack " + stack)
    try:
        ingest(request["warm"])
        stats.embed_cpu, stats.embed_mb = 0.0, 0.0
        cpu, wall = time.process_time(), time.perf_counter()
        chunks = ingest(request["files"])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    finally:
        close()
    megabytes = sum(os.path.getsize(path) for path in request["files"]) / 1e6
    print(
        json.dumps(
            {
                "megabytes": megabytes,
                "cpu": cpu,
                "wall": wall,
                "chunks": chunks,
                "embedCpu": stats.embed_cpu,
                "embedMegabytes": stats.embed_mb,
            }
        )
    )


if __name__ == "__main__":
    main()
