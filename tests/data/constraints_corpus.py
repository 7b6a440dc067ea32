"""Parent/child text pairs for constraint-loss detection, with the losses a reader would flag.

Each case is a handoff edge: ``parent`` is what a producer emitted, ``child`` what the next step
received. ``lost`` maps a constraint class to the tokens the child dropped; an empty ``lost``
marks a control, where the child rewrites or reformats the parent without losing anything.
Losses are planted by hand, one or a few per case, in invoices, agent briefs, contracts and
ops runbooks. The INV-88214 reference incident (DESIGN.md) is the first case.

``PARAPHRASES`` are children that reword a constraint (``1% per month`` as ``1 percent monthly``);
token matching cannot see through them, so they measure a known limit and are not scored.
"""

from __future__ import annotations


def _case(name: str, parent: str, child: str, **lost: list[str]) -> dict:
    return {"name": name, "parent": parent, "child": child, "lost": lost, "paraphrase": False}


def _paraphrase(name: str, parent: str, child: str) -> dict:
    """A child that says the same thing in other words: nothing is lost, but tokens may differ."""
    return {"name": name, "parent": parent, "child": child, "lost": {}, "paraphrase": True}


CASES: list[dict] = [
    # --- invoices ---------------------------------------------------------------------------
    _case(
        "inv-88214-compressor",
        "Validator report for INV-88214: 340 billable lines, subtotal $172,000.00. Volume rebate tier 3 "
        "applies at 9.5%. Freight surcharge under clause 7.2 at 9.1%; surcharge base is the rebated "
        "subtotal per 7.2(b).",
        "INV-88214: 340 lines, subtotal $172,000.00; rebate tier 3 at 9.5%; freight surcharge: 9.1% (clause 7.2)",
        clause=["clause:7.2(b)"],
        qualifier=["qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)"],
    ),
    _case(
        "inv-88214-reformatted",
        "Validator report for INV-88214: 340 billable lines, subtotal $172,000.00. Volume rebate tier 3 "
        "applies at 9.5%. Freight surcharge under clause 7.2 at 9.1%; surcharge base is the rebated "
        "subtotal per 7.2(b).",
        "Report INV-88214 - 340 billable lines; subtotal USD 172,000; volume rebate tier 3 at 9.50 percent; "
        "clause 7.2 freight surcharge 9.1 pct; surcharge base is the rebated subtotal per §7.2(b).",
    ),
    _case(
        "invoice-due-date-dropped",
        "Invoice INV-90412 totals $48,250.00 and is due 2026-04-15. Late payments accrue 1.5% per month.",
        "Invoice INV-90412 totals $48,250.00. Late payments accrue 1.5% per month.",
        date=["date:2026-04-15"],
    ),
    _case(
        "invoice-due-date-reworded",
        "Invoice INV-90412 totals $48,250.00 and is due 2026-04-15. Late payments accrue 1.5% per month.",
        "INV-90412: $48,250 due April 15, 2026; late payments accrue 1.5 percent per month.",
    ),
    _case(
        "po-shipping-amount-dropped",
        "PO-2231-A covers 120 pallets at $310.00 each, total $37,200.00, shipping EUR 1,450 billed separately.",
        "PO-2231-A covers 120 pallets at $310.00 each, total $37,200.00.",
        money=["money:EUR1450.00"],
    ),
    _case(
        "po-reformatted",
        "PO-2231-A covers 120 pallets at $310.00 each, total $37,200.00, shipping EUR 1,450 billed separately.",
        "PO-2231-A: 120 pallets x $310 = $37,200; shipping 1,450 EUR billed separately",
    ),
    _case(
        "early-payment-discount-dropped",
        "Apply a 4% early-payment discount if paid within 10 days; VAT is charged at 20% on the net amount.",
        "VAT is charged at 20% on the net amount; early-payment discount applies if paid within 10 days.",
        percent=["percent:4"],
    ),
    _case(
        "credit-note-id-dropped",
        "Credit note CN-5521 offsets invoice INV-77310 by $2,400.00.",
        "A credit offsets invoice INV-77310 by $2,400.00.",
        id=["id:CN-5521"],
    ),
    _case(
        "disputed-count-dropped",
        "Customer disputes 14 of the line items; rebate tier 2 applies.",
        "Customer disputes several line items; rebate tier 2 applies.",
        number=["number:14"],
    ),
    _case(
        "shipment-weight-dropped",
        "The shipment weighs 1,250 kg across 42 pallets.",
        "The shipment spans 42 pallets.",
        unit=["unit:1250 kg"],
    ),
    _case(
        "rebate-exclusion-negation-dropped",
        "Do not apply the volume rebate to freight charges.",
        "Apply the volume rebate to freight charges.",
        negation=["negation:not apply the volume rebate"],
    ),
    _case(
        "rebate-threshold-qualifier-dropped",
        "Rebate applies only if the order exceeds $50,000.00.",
        "Rebate applies; order exceeds $50,000.00.",
        qualifier=["qualifier:only if the order exceeds USD50000.00"],
    ),
    _case(
        "payment-date-reformatted",
        "Payment received 03/11/2026 for INV-88214.",
        "INV-88214 payment received on 11 March 2026.",
    ),
    _case(
        "payment-run-time-dropped",
        "Payment run executes at 14:30 UTC on 2026-03-11.",
        "Payment run executes on 2026-03-11.",
        time=["time:14:30Z"],
    ),
    _case(
        "rebate-tier-number-dropped",
        "Rebate tier 3 applies to this account.",
        "A rebate tier applies to this account.",
        number=["number:3"],
    ),
    _case(
        "duplicates-count-dropped",
        "The validator flagged 7 anomalies and 2 duplicates.",
        "The validator flagged 7 anomalies.",
        number=["number:2"],
    ),
    _case(
        "failing-row-dropped",
        "Batch 4417 failed at row 3 of 12.",
        "Batch 4417 failed.",
        number=["number:3", "number:12"],
    ),
    _case(
        "commission-cap-dropped",
        "Commission is 2.5% of net revenue, capped at 10% of gross.",
        "Commission is 2.5% of net revenue.",
        percent=["percent:10"],
        comparison=["comparison:<= percent:10"],
    ),
    _case(
        "onboarding-fee-dropped",
        "Annual fee of $12,000 plus $1,500 onboarding.",
        "Annual fee of $12,000.",
        money=["money:USD1500.00"],
    ),
    _case(
        "pilot-budget-dropped",
        "Budget for the pilot is €40.000, with a 10% contingency.",
        "Pilot budget has a 10% contingency.",
        money=["money:EUR40000.00"],
    ),
    _case(
        "installation-quote-dropped",
        "The supplier quoted 8,400 USD for installation.",
        "The supplier quoted for installation.",
        money=["money:USD8400.00"],
    ),
    _case(
        "price-lock-date-dropped",
        "Price lock expires Mar 31 2026.",
        "Price lock expires soon.",
        date=["date:2026-03-31"],
    ),
    _case(
        "approval-date-dropped",
        "Board approval dated 12/01/2025 is attached.",
        "Board approval is attached.",
        date=["date:2025-01-12|2025-12-01"],  # no other date fixes the order: either reading
    ),
    _case(
        "subtotal-reformatted",
        "Subtotal $172,000.00 before rebate.",
        "Subtotal USD 172,000 before rebate.",
    ),
    _case(
        "total-millions-reformatted",
        "Total: $1.2M",
        "Total: USD 1,200,000",
    ),
    _case(
        "refs-reordered",
        "Refs: INV-88214, PO-2231-A.",
        "PO-2231-A and INV-88214 referenced.",
    ),
    _case(
        "surcharge-clause-reformatted",
        "Apply the 9.1% surcharge per clause 7.2 on the rebated subtotal.",
        "Per §7.2, apply a 9.1 percent surcharge on the rebated subtotal.",
    ),
    # --- agent briefs -----------------------------------------------------------------------
    _case(
        "discount-cap-negation-dropped",
        "You are the pricing agent. Never exceed the approved discount of 12%. Use adapter_no_query_v2 for lookups.",
        "You are the pricing agent. Use adapter_no_query_v2 for lookups; approved discount is 12%.",
        negation=["negation:not exceed the approved discount"],
    ),
    _case(
        "adapter-ids-dropped",
        "Route lookups through adapter_no_query_v2, not the legacy adapter_query_v1.",
        "Route lookups through the new adapter.",
        id=["id:adapter_no_query_v2", "id:adapter_query_v1"],
        negation=["negation:not the legacy adapter_query_v1"],
    ),
    _case(
        "token-budget-dropped",
        "Summarize the report in at most 400 tokens; the source report is about 2,200 tokens.",
        "Summarize the report; the source report is about 2,200 tokens.",
        unit=["unit:400 tokens"],
        comparison=["comparison:<= unit:400 tokens"],
    ),
    _case(
        "token-budget-reworded",
        "Summarize the report in at most 400 tokens; the source report is about 2,200 tokens.",
        "Keep the summary to at most 400 tokens (source is about 2200 tokens).",
    ),
    _case(
        "retry-negation-dropped",
        "Retry failed calls up to 3 times, but do not retry on HTTP 4xx errors.",
        "Retry failed calls up to 3 times.",
        negation=["negation:not retry"],
    ),
    _case(
        "deadline-qualifier-dropped",
        "Deliver the draft no later than March 20, 2026 at 17:00 CET.",
        "Deliver the draft on 2026-03-20, 17:00 CET.",
        comparison=["comparison:<= date:2026-03-20"],
    ),
    _case(
        "deadline-reformatted",
        "Deliver the draft no later than March 20, 2026 at 17:00 CET.",
        "Deliver the draft no later than 2026-03-20, 17:00 CET.",
    ),
    _case(
        "escalation-condition-dropped",
        "Escalate to on-call only if error rate exceeds 2% for 5 minutes.",
        "Escalate to on-call if error rate exceeds 2% for 5 minutes.",
        qualifier=["qualifier:only if error rate exceeds"],
    ),
    _case(
        "tax-exclusion-dropped",
        "Compute totals excluding tax and including freight.",
        "Compute totals including freight.",
        qualifier=["qualifier:excluding tax"],
    ),
    _case(
        "ticket-mention-dropped",
        "Reply in English; never mention internal ticket JIRA-4471.",
        "Reply in English.",
        negation=["negation:not mention internal ticket"],
        id=["id:JIRA-4471"],
    ),
    _case(
        "sampling-parameter-dropped",
        "Use model temperature 0.2 and top-p 0.95 for the extraction step.",
        "Use model temperature 0.2 for the extraction step.",
        number=["number:0.95"],
    ),
    _case(
        "confidence-floor-dropped",
        "Model confidence must be at least 85 percent before auto-approval.",
        "Model confidence must be high before auto-approval.",
        percent=["percent:85"],
        comparison=["comparison:>= percent:85"],
    ),
    _case(
        "refund-limit-dropped",
        "Approve refunds up to £250 without manager sign-off.",
        "Approve refunds without manager sign-off.",
        money=["money:GBP250.00"],
        comparison=["comparison:<= money:GBP250.00"],
    ),
    _case(
        "standup-time-dropped",
        "Daily standup at 9:15 am with the billing team.",
        "Daily standup in the morning with the billing team.",
        time=["time:09:15"],
    ),
    _case(
        "trace-digest-dropped",
        "Trace 9f86d081884c7d659a2feaa0c55ad015 shows the failing call.",
        "Trace shows the failing call.",
        id=["id:9f86d081884c7d659a2feaa0c55ad015"],
    ),
    _case(
        "request-uuid-dropped",
        "Request 3f2a1c4e-9b7d-4e2a-8c1f-0a1b2c3d4e5f timed out.",
        "Request timed out.",
        id=["id:3f2a1c4e-9b7d-4e2a-8c1f-0a1b2c3d4e5f"],
    ),
    _case(
        "step-name-dropped",
        "The step orchestrator.compress_v3 runs before price.",
        "A compression step runs before price.",
        id=["id:orchestrator.compress_v3"],
    ),
    _case(
        "input-length-limit-dropped",
        "Truncate inputs longer than 8,000 characters.",
        "Truncate long inputs.",
        unit=["unit:8000 characters"],
        comparison=["comparison:> unit:8000 characters"],
    ),
    _case(
        "data-sharing-negation-dropped",
        "Agents must not share customer emails with vendors.",
        "Agents share customer emails with vendors.",
        negation=["negation:not share customer emails"],
    ),
    _case(
        "shipping-condition-dropped",
        "Ship only when payment clears.",
        "Ship when payment clears.",
        qualifier=["qualifier:only if payment clears"],
    ),
    _case(
        "fee-base-dropped",
        "Fees are calculated based on the rebated subtotal.",
        "Fees are calculated on the subtotal.",
        qualifier=["qualifier:based on the rebated subtotal"],
    ),
    _case(
        "returns-exception-dropped",
        "Include all line items except returns.",
        "Include all line items.",
        qualifier=["qualifier:except returns"],
    ),
    _case(
        "retry-negation-contracted",
        "Do not retry unless the error is transient.",
        "Don't retry unless the error is transient.",
    ),
    _case(
        "never-as-do-not",
        "Never exceed the cap.",
        "Do not exceed the cap.",
    ),
    _case(
        "minimum-replicas-reworded",
        "Keep at least 3 replicas.",
        "Keep no fewer than 3 replicas.",
    ),
    _case(
        "percent-reformatted",
        "Discount: 9.5%",
        "Discount: 9.50 percent",
    ),
    _case(
        "token-count-reformatted",
        "Batch limited to 2,200 tokens.",
        "Batch limited to 2200 tokens.",
    ),
    _case(
        "plain-prose",
        "Thanks, the summary reads well.",
        "The summary reads well, thanks.",
    ),
    # --- contracts --------------------------------------------------------------------------
    _case(
        "delivery-section-dropped",
        "Under section 4.1, the supplier must deliver within 30 days of the purchase order.",
        "The supplier must deliver within 30 days of the purchase order.",
        clause=["clause:4.1"],
    ),
    _case(
        "delivery-section-reformatted",
        "Under section 4.1, the supplier must deliver within 30 days of the purchase order.",
        "Supplier must deliver within 30 days of the purchase order (§4.1).",
    ),
    _case(
        "erasure-exception-dropped",
        "Personal data is erased under Art. 17 unless retention is required by law.",
        "Personal data is erased under Art. 17.",
        qualifier=["qualifier:unless retention is required"],
    ),
    _case(
        "termination-exception-dropped",
        "Either party may terminate with 90 days' written notice, except for breach under clause 12.3.",
        "Either party may terminate with 90 days' written notice.",
        clause=["clause:12.3"],
        qualifier=["qualifier:except for breach"],
    ),
    _case(
        "liability-cap-dropped",
        "Liability is capped at $1,000,000 per claim, excluding gross negligence.",
        "Liability is capped per claim, excluding gross negligence.",
        money=["money:USD1000000.00"],
        comparison=["comparison:<= money:USD1000000.00"],
    ),
    _case(
        "liability-cap-reformatted",
        "Liability is capped at $1,000,000 per claim, excluding gross negligence.",
        "Liability capped at USD 1,000,000 per claim (excluding gross negligence).",
    ),
    _case(
        "commencement-date-dropped",
        "The agreement commences on 1 January 2026 and renews annually.",
        "The agreement renews annually.",
        date=["date:2026-01-01"],
    ),
    _case(
        "schedule-reference-dropped",
        "Pricing follows Schedule B and the rate card in Annex 2.",
        "Pricing follows the rate card in Annex 2.",
        clause=["clause:schedule.b"],
    ),
    _case(
        "interest-rate-dropped",
        "Overdue amounts bear interest at 1.25% per month.",
        "Overdue amounts bear interest per month.",
        percent=["percent:1.25"],
    ),
    _case(
        "assignment-negations-dropped",
        "The customer shall not assign this agreement without prior written consent.",
        "The customer may assign this agreement with written consent.",
        negation=["negation:not assign", "negation:without prior written consent"],
    ),
    _case(
        "assignment-reworded",
        "The customer shall not assign this agreement without prior written consent.",
        "Customer shall not assign this agreement without prior written consent (see section 9).",
    ),
    _case(
        "arbitration-clause-dropped",
        "Disputes are resolved under section 14.2(a) arbitration rules.",
        "Disputes go to arbitration.",
        clause=["clause:14.2(a)"],
    ),
    _case(
        "warranty-section-dropped",
        "Warranties in Sections 8.1 and 8.3 survive termination.",
        "Warranties in Section 8.1 survive termination.",
        clause=["clause:8.3"],
    ),
    _case(
        "article-reference-dropped",
        "See Article 5 for data transfers.",
        "See the data transfer terms.",
        clause=["clause:art.5"],
    ),
    _case(
        "retention-review-month-dropped",
        "Data retention review due in June 2026.",
        "Data retention review due soon.",
        date=["date:2026-06"],
    ),
    _case(
        "services-agreement-summary",
        "The Services Agreement dated 2025-09-01 sets fees of $8,500 per month, payable within 30 days of "
        "invoice, with a 3% annual increase under clause 5.4.",
        "Services Agreement (2025-09-01): fees $8,500 per month, payable within 30 days of invoice.",
        percent=["percent:3"],
        clause=["clause:5.4"],
    ),
    _case(
        "sections-list-reformatted",
        "Refer to sections 4.1 and 4.2.",
        "Refer to §4.1 and §4.2.",
    ),
    _case(
        "contract-date-reformatted",
        "Contract signed 2026-03-11.",
        "Contract signed on March 11, 2026.",
    ),
    _case(
        "surcharge-clause-symbol",
        "Surcharge computed per §7.2(b).",
        "Surcharge computed per clause 7.2(b).",
    ),
    _case(
        "refund-window-negation-dropped",
        "No refunds after 30 days.",
        "Refunds after 30 days.",
        negation=["negation:no refunds"],
    ),
    # --- ops runbooks -----------------------------------------------------------------------
    _case(
        "latency-thresholds-dropped",
        "If p99 latency exceeds 800 ms for 10 minutes, page the on-call engineer.",
        "If latency is high, page the on-call engineer.",
        unit=["unit:800 ms", "unit:10 min"],
        comparison=["comparison:> unit:800 ms"],
    ),
    _case(
        "region-dropped",
        "Restart worker pods in us-east-1 only; never drain more than 2 nodes at once.",
        "Restart worker pods; never drain more than 2 nodes at once.",
        id=["id:us-east-1"],
    ),
    _case(
        "key-rotation-deadline-dropped",
        "Rotate the API key before 2026-06-30; the current key expires at 00:00 UTC.",
        "Rotate the API key; the current key expires at 00:00 UTC.",
        date=["date:2026-06-30"],
        qualifier=["qualifier:before 2026-06-30"],
    ),
    _case(
        "replica-floor-dropped",
        "Keep at least 3 replicas running during the migration window 02:00-04:00 UTC.",
        "Keep 3 replicas running during the migration window 02:00-04:00 UTC.",
        comparison=["comparison:>= unit:3 replicas"],
    ),
    _case(
        "migration-window-reformatted",
        "Keep at least 3 replicas running during the migration window 02:00-04:00 UTC.",
        "Keep at least 3 replicas running during the migration window (02:00 to 04:00 UTC).",
    ),
    _case(
        "disk-threshold-dropped",
        "Disk alert fires at 85% usage on /var; threshold for /data is 90%.",
        "Disk alert fires at 85% usage on /var.",
        percent=["percent:90"],
    ),
    _case(
        "backup-verification-time-dropped",
        "Backups are retained for 35 days and verified every Sunday at 3 am.",
        "Backups are retained for 35 days.",
        time=["time:03:00"],
    ),
    _case(
        "replication-lag-bound-dropped",
        "Failover to the standby only after confirming replication lag is below 5 seconds.",
        "Failover to the standby after confirming replication lag.",
        unit=["unit:5 s"],
        comparison=["comparison:< unit:5 s"],
    ),
    _case(
        "restart-negation-dropped",
        "Do not restart the primary database during business hours.",
        "Restart the primary database outside business hours.",
        negation=["negation:not restart the primary database"],
    ),
    _case(
        "escalation-window-dropped",
        "Escalate incidents with severity SEV-1 within 15 minutes to incident-commander.",
        "Escalate SEV-1 incidents to incident-commander.",
        unit=["unit:15 min"],
        comparison=["comparison:<= unit:15 min"],
    ),
    _case(
        "batch-window-time-dropped",
        "The batch window closes at 23:59:59 UTC.",
        "The batch window closes at midnight.",
        time=["time:23:59:59Z"],
    ),
    _case(
        "deploy-freeze-time-dropped",
        "Deploy freeze starts 18:00 EST on Friday.",
        "Deploy freeze starts Friday.",
        time=["time:23:00Z"],
    ),
    _case(
        "container-memory-dropped",
        "Each container gets 512 MB of memory and 2 workers.",
        "Each container gets 2 workers.",
        unit=["unit:512000000 B"],
    ),
    _case(
        "customs-hold-dropped",
        "Hold the shipment until the customs form is signed.",
        "Hold the shipment.",
        qualifier=["qualifier:until the customs form is signed"],
    ),
    _case(
        "incident-brief-compressed",
        "Incident INC-2291: error rate 4.2% since 13:05 UTC on 2026-02-14; rollback to release r-118 only if "
        "the canary fails; do not page the database team.",
        "Incident INC-2291: error rate 4.2% since 13:05 UTC; rollback to release r-118.",
        date=["date:2026-02-14"],
        qualifier=["qualifier:only if the canary fails"],
        negation=["negation:not page the database team"],
    ),
    _case(
        "cutoff-time-reformatted",
        "Cutoff is 2:30 pm.",
        "Cutoff is 14:30.",
    ),
    _case(
        "iso-timestamp-reformatted",
        "Cutoff 2026-03-11T14:30:00Z",
        "Cutoff March 11, 2026 at 14:30 UTC",
    ),
    _case(
        "delivery-window-hyphenated",
        "Deliver within 30 days.",
        "Deliver within 30-day window.",
    ),
    # --- longer, formatted payloads ---------------------------------------------------------
    _case(
        "markdown-brief-compressed",
        "## Pricing brief for INV-88214\n\n1. Lines: 340 billable lines\n2. Subtotal: $172,000.00\n"
        "3. Rebate: tier 3 at 9.5%\n4. **Do not** apply the surcharge to the unrebated subtotal.\n"
        "5. Surcharge base is the rebated subtotal per 7.2(b).\n",
        "INV-88214 brief: 340 lines, $172,000.00 subtotal, tier 3 rebate 9.5%. Do not apply the surcharge "
        "to the unrebated subtotal.",
        clause=["clause:7.2(b)"],
        qualifier=["qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)"],
    ),
    _case(
        "markdown-emphasis-added",
        "Never exceed the approved discount of 12%.",
        "**Never** exceed the approved discount of 12%.",
    ),
    _case(
        "json-payload-fields-dropped",
        '{"invoice": "INV-88214", "subtotal": 172000.00, "rebate_pct": 9.5, "surcharge_pct": 9.1, '
        '"surcharge_base": "rebated_subtotal", "clause": "7.2(b)"}',
        '{"invoice": "INV-88214", "subtotal": 172000, "rebate_pct": 9.5, "surcharge_pct": 9.1}',
        clause=["clause:7.2(b)"],
    ),
    _case(
        "runbook-scaling-limit-dropped",
        "Runbook RB-17 (payments-writer):\n- If the queue depth stays above 10,000 messages for 15 minutes, "
        "scale writers to 6 instances.\n- Never scale beyond 12 instances without approval from the payments "
        "lead.\n- Maintenance window: Sundays 01:00-03:00 UTC.",
        "RB-17: scale payments-writer to 6 instances when queue depth stays above 10,000 messages for "
        "15 minutes. Maintenance: Sundays 01:00-03:00 UTC.",
        negation=["negation:not scale beyond 12 instances", "negation:without approval"],
        unit=["unit:12 instances"],
    ),
    _case(
        "vendor-call-negation-dropped",
        "Schedule the vendor call for Tuesday, March 17, 2026 at 3:00 pm EST. Send the agenda at least "
        "24 hours before the call. Do not invite external counsel.",
        "Vendor call: 2026-03-17, 15:00 EST. Agenda due at least 24 hours before the call.",
        negation=["negation:not invite external counsel"],
    ),
    _case(
        "invoice-lines-compressed",
        "Line 1: 200 units @ $45.00 = $9,000.00\nLine 2: 140 units @ $50.00 = $7,000.00\n"
        "Discount: 5% (promo code SPRING26)\nTotal due: $15,200.00 by 2026-05-01",
        "Line 1: 200 units @ $45.00; Line 2: 140 units @ $50.00; total due $15,200.00 by 2026-05-01.",
        money=["money:USD9000.00", "money:USD7000.00"],
        percent=["percent:5"],
        id=["id:SPRING26"],
    ),
]
_VALIDATION_REPORT = (
    "VALIDATION REPORT\n\nFindings:\n- invoice: INV-88214\n- billable lines: 340\n- subtotal: $172,000.00\n"
    "- volume rebate: tier 3 at 9.5%\n- freight surcharge: 9.1% (clause 7.2)\n\nNotes:\n"
    "Clause 7.2 applies because the consignment crosses the regional freight boundary. The surcharge base "
    "is the rebated subtotal per 7.2(b), so the rebate must be applied first and the surcharge computed on "
    "what remains.\n\n"
)
_METHOD = (
    "Each billable line was matched against the master price schedule and the contract terms on file. "
    "Quantities were reconciled with the carrier's proof of delivery, and unit descriptions were compared "
    "with the catalogue entries for the customer's account. Lines that share a consignment were grouped so "
    "that handling charges apply once per consignment, as the contract requires."
)
_RUNBOOK = (
    "## Runbook: payments-writer backlog\n\n1. Check queue depth; if it stays above 10,000 messages for "
    "15 minutes, scale to 6 instances.\n2. Never scale beyond 12 instances without approval from the "
    "payments lead.\n3. Do not restart the primary database during business hours (09:00-18:00 CET).\n"
    "4. Escalate SEV-1 incidents within 15 minutes.\n"
)
_PAYMENT_TERMS = (
    "Section 9.2 (Payment). Customer shall pay each invoice within 45 days of receipt. Late amounts bear "
    "interest at 1% per month. Section 9.3 (Disputes). Customer may withhold disputed amounts only if it "
    "notifies Supplier in writing before the due date, citing invoice number and the disputed line items."
)

CASES += [
    _case(
        "validator-report-compress-v3",
        _VALIDATION_REPORT + _METHOD + "\n\n" + _METHOD + "\n",
        "BRIEF\ninvoice: INV-88214\nbillable lines: 340\nsubtotal: $172,000.00\nvolume rebate: tier 3 at 9.5%\n"
        "freight surcharge: 9.1% (clause 7.2)\n" + _METHOD,
        clause=["clause:7.2(b)"],
        qualifier=["qualifier:base is the rebated subtotal", "qualifier:per 7.2(b)"],
    ),
    _case(
        "runbook-list-to-prose",
        _RUNBOOK,
        "Payments-writer backlog: when queue depth stays above 10,000 messages for 15 minutes, scale to 6 "
        "instances. Never scale beyond 12 instances without approval from the payments lead. Do not restart "
        "the primary database during business hours (09:00-18:00 CET). Escalate SEV-1 incidents within 15 minutes.",
    ),
    _case(
        "dispute-conditions-dropped",
        _PAYMENT_TERMS,
        "Payment (§9.2): within 45 days of receipt; late amounts bear interest at 1% per month. Disputes (§9.3): "
        "customer may withhold disputed amounts, citing invoice number and the disputed line items.",
        qualifier=["qualifier:only if it notifies supplier", "qualifier:before the due date"],
    ),
]

CASES += [
    _case(
        "random-seed-dropped",
        "Model run used seed 42 and batch size 16.",
        "Model run used batch size 16.",
        number=["number:42"],
    ),
    _case(
        "paragraph-count-dropped",
        "The validator checked 19 paragraphs of method notes and found 0 errors.",
        "The validator checked the method notes and found 0 errors.",
        number=["number:19"],
    ),
    _case(
        "region-count-dropped",
        "Rate limit is 600 per minute across 4 regions.",
        "Rate limit is 600 per minute.",
        number=["number:4"],
    ),
    _case(
        "settlement-deadline-dropped",
        "Settlement file arrives at 06:45 UTC and is processed by 07:30 UTC.",
        "Settlement file arrives at 06:45 UTC.",
        time=["time:07:30Z"],
        comparison=["comparison:<= time:07:30Z"],
    ),
    _case(
        "quiet-hours-dropped",
        "Quiet hours run from 10 pm to 6 am local time.",
        "Quiet hours run overnight.",
        time=["time:22:00", "time:06:00"],
    ),
    _case(
        "standup-time-reformatted",
        "Standup at 9:30 am ET.",
        "Standup at 09:30 ET.",
    ),
]

PARAPHRASES: list[dict] = [
    _paraphrase(
        "payment-terms-paraphrased",
        "Section 9.2 (Payment). Customer shall pay each invoice within 45 days of receipt. Amounts not paid "
        "when due bear interest at 1% per month, except amounts disputed in good faith under Section 9.4.",
        "§9.2: pay invoices within 45 days of receipt; overdue amounts bear 1 percent monthly interest, "
        "except amounts disputed in good faith (§9.4).",
    ),
    _paraphrase(
        "retry-limit-in-words",
        "Do not retry more than twice.",
        "Retry at most 2 times.",
    ),
    _paraphrase(
        "deadline-paraphrased",
        "Submit the report no later than 2026-03-31.",
        "Submit the report by March 31, 2026.",
    ),
]
