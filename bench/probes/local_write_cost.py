"""What one node write costs DynamoDB Local's JVM, by request shape.

The rank index's apply on DynamoDB Local is bound by the JVM's CPU per item written (its one
busy core), not by round trips. This probe writes the same conditional counter update (an ADD
of two counters and a SET of the journal number, on condition of the node's journal number, as
the apply's node write) to 4,000 items of a table with a stream, three ways: one UpdateItem a
request (32 in flight), PartiQL BatchExecuteStatement (25 a request, 8 in flight) and
TransactWriteItems (100 a request, 8 in flight). It reports the JVM's CPU time per item, read
from /proc, for rounds 4 to 6 of 6 (the first three warm its JIT up). With BENCH_OUT set (the
benchmark command's part `write_cost`) it also writes its section of BENCHMARKS.md.

    bash bench/probes/local_write_cost.sh

Loopback only; boto3 from the machine's Python (it says so and stops without it).
"""

import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

try:
    import boto3
except ImportError:
    sys.exit("local_write_cost: boto3 is not installed (pip install boto3)")

ENDPOINT, JVM_PID = sys.argv[1], int(sys.argv[2])
TABLE = "probe"
ITEMS = 4000
ROUNDS = 6
WARM_ROUNDS = 3


def jvm_cpu_seconds():
    fields = open(f"/proc/{JVM_PID}/stat").read().split(")")[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def client():
    return boto3.client(
        "dynamodb",
        endpoint_url=ENDPOINT,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


LOCAL = threading.local()


def thread_client():
    if not hasattr(LOCAL, "client"):
        LOCAL.client = client()
    return LOCAL.client


def key(pk, sk):
    return {"pk": {"S": pk}, "sk": {"S": sk}}


UPDATE = {
    "UpdateExpression": "ADD c05 :d, c17 :e SET j = :j",
    "ConditionExpression": "attribute_not_exists(j) OR j < :j",
}


def values(journal):
    return {":d": {"N": "1"}, ":e": {"N": "-1"}, ":j": {"N": str(journal)}}


def one_update(args):
    (pk, sk), journal = args
    thread_client().update_item(
        TableName=TABLE, Key=key(pk, sk), ExpressionAttributeValues=values(journal), **UPDATE
    )


def partiql_batch(args):
    keys, journal = args
    statement = (
        f'UPDATE "{TABLE}" SET c05 = c05 + ? SET c17 = c17 + ? SET j = ? '
        "WHERE pk = ? AND sk = ? AND j < ?"
    )
    answer = thread_client().batch_execute_statement(
        Statements=[
            {
                "Statement": statement,
                "Parameters": [
                    {"N": "1"},
                    {"N": "-1"},
                    {"N": str(journal)},
                    {"S": pk},
                    {"S": sk},
                    {"N": str(journal)},
                ],
            }
            for pk, sk in keys
        ]
    )
    failed = [r for r in answer["Responses"] if "Error" in r]
    if failed:
        sys.exit(f"local_write_cost: a statement failed: {failed[0]}")


def transaction(args):
    keys, journal = args
    thread_client().transact_write_items(
        TransactItems=[
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": key(pk, sk),
                    "ExpressionAttributeValues": values(journal),
                    **UPDATE,
                }
            }
            for pk, sk in keys
        ]
    )


def main():
    setup = client()
    setup.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    keys = [(f"RANKV2#b#1#{i % 100:02d}", f"{i:08d}") for i in range(ITEMS)]
    for at in range(0, ITEMS, 25):
        setup.batch_write_item(
            RequestItems={
                TABLE: [
                    {"PutRequest": {"Item": {**key(pk, sk), "c05": {"N": "1"}, "c17": {"N": "3"}, "j": {"N": "0"}}}}
                    for pk, sk in keys[at : at + 25]
                ]
            }
        )
    shapes = [
        ("UpdateItem, 1 a request", 32, one_update, 1),
        ("BatchExecuteStatement, 25 a request", 8, partiql_batch, 25),
        ("TransactWriteItems, 100 a request", 8, transaction, 100),
    ]
    journal = 0
    measured = {name: [] for name, _, _, _ in shapes}
    for round_ in range(ROUNDS):
        for name, in_flight, write, per_request in shapes:
            journal += 1
            if per_request == 1:
                work = [(k, journal) for k in keys]
            else:
                work = [(keys[i : i + per_request], journal) for i in range(0, ITEMS, per_request)]
            before = jvm_cpu_seconds()
            with ThreadPoolExecutor(in_flight) as pool:
                list(pool.map(write, work))
            if round_ >= WARM_ROUNDS:
                measured[name].append((jvm_cpu_seconds() - before) * 1000 / ITEMS)
    item = setup.get_item(TableName=TABLE, Key=key(*keys[0]), ConsistentRead=True)["Item"]
    if int(item["c05"]["N"]) != 1 + journal or int(item["j"]["N"]) != journal:
        sys.exit(f"local_write_cost: the writes did not all apply: {item}")
    rounds = range(WARM_ROUNDS + 1, ROUNDS + 1)
    table = "| request shape | " + " | ".join(f"round {r}" for r in rounds) + " |\n"
    table += "| --- |" + " ---: |" * len(rounds) + "\n"
    for (name, in_flight, _, _), ms in zip(shapes, measured.values()):
        table += f"| {name}, {in_flight} in flight | " + " | ".join(f"{m:.3f} ms" for m in ms) + " |\n"
    print(table)
    out = os.environ.get("BENCH_OUT")
    if out:
        with open(os.path.join(out, "85-local-write-cost.md"), "w") as f:
            f.write(
                "## DynamoDB Local's CPU per node write (issue 55)\n\n"
                "`bash bench/probes/local_write_cost.sh`: the rank index apply's node write (`ADD` of two "
                "counters, `SET j`, on condition of `j`) on 4,000 items of a table with a stream, DynamoDB "
                "Local's JVM CPU per item from `/proc`, rounds 4 to 6 of 6 (the first warm its JIT):\n\n"
                + table
                + "\nAn item written costs DynamoDB Local's core about the same in any request shape, so the "
                "index's rate there follows its item writes per change (see docs/rank-index.md, \"Left\").\n\n"
            )

main()
