"""The heuristic judge on support answers (issue 23): each new signal, shown with two texts that
differ by it, moves the score the way it should; the support set's table is what the benchmark
prints."""

from __future__ import annotations

import pytest

from pytest_llmjudge.judges.heuristic import score_relevance, score_tone
from pytest_llmjudge.judges.heuristic.model import fitted
from pytest_llmjudge.judges.heuristic.relevance import nothing_to_act_on, relevance_signals
from pytest_llmjudge.judges.heuristic.steps import concrete_tokens, technical_tokens
from pytest_llmjudge.judges.heuristic.tone import tone_signals

RESET = "Password reset email never arrives"


def tone(text: str) -> float:
    return fitted("tone").continuous(tone_signals(text).values())


def relevance(ticket: str, text: str) -> float:
    return fitted("relevance").continuous(relevance_signals(ticket, text).values())


# --- relevance: what an answer addresses, not only the words it repeats -----------------


OOM = "Pods are OOMKilled although the node has free memory"


@pytest.mark.parametrize(
    "something_to_act_on",
    [
        "Raise the container's memory limit in the deployment.",  # a step
        "The limit is set to 256Mi in the deployment.",  # a setting
        "The kernel kills the pod above its 512 MB cgroup limit.",  # a figure
        "If the limit is too low, raise it in the deployment.",  # a step after a clause
        "The limit is low, or give the pod a higher one.",  # a step after ", or"
        "It shows as 'Limit exceeded' under the pod's events.",  # a quoted label
    ],
    ids=["step", "setting", "figure", "step-in-a-clause", "step-after-or", "quoted-label"],
)
def test_a_statement_on_the_topic_with_nothing_to_act_on_is_partially_relevant_at_most(
    something_to_act_on: str,
) -> None:
    general = "Memory is a complex area in container orchestration. Results will vary."
    score, reason = score_relevance(OOM, general)
    assert score <= 3
    assert "nothing to act on" in reason
    assert score_relevance(OOM, f"Memory is a complex area. {something_to_act_on}")[0] >= 4


def test_nothing_to_act_on_spares_a_question_back_talk_a_why_ticket_and_chit_chat() -> None:
    question = "Does it happen on every node of the pool, or only on the one with the GPU?"
    assert "nothing to act on" not in score_relevance(OOM, question)[1]
    assert "nothing to act on" not in score_relevance(OOM, "I think memory is a complex area.")[1]
    why = "Why did my invoice include a charge for seats we removed?"
    cause = (
        "Removed seats are billed until the end of the period; the credit is on the next invoice."
    )
    assert score_relevance(why, cause)[0] >= 4
    choice = "Should we render our pages on the server or in the browser?"
    chosen = "On the server for content pages that must be indexed; in the browser for app screens."
    assert score_relevance(choice, chosen)[0] >= 4
    paypal = "Can I pay with PayPal?"
    not_directly = "Not directly. We take cards; a virtual card from PayPal works as a card."
    assert score_relevance(paypal, not_directly)[0] >= 4
    yes_no = "Do we need a firewall if we're fully in the cloud?"
    yes = "Yes, in a different form: security groups per service and a web application firewall."
    assert score_relevance(yes_no, yes)[0] >= 4
    assert "nothing to act on" in score_relevance(yes_no, "Firewalls are a classic topic.")[1]
    catch_all = "Can we use a catch-all address for our domain?"
    spam = "it collects a lot of spam sent to addresses nobody uses."
    assert score_relevance(catch_all, f"You can, but {spam}")[0] >= 4
    assert "nothing to act on" in score_relevance(catch_all, spam.capitalize())[1]
    how = "How is the price calculated when we add users mid-month?"
    explained = "New users are charged pro rata for the rest of the billing period."
    assert score_relevance(how, explained)[0] >= 4
    # no support term in the ticket ("team" and "call" are everyday words too): chit-chat
    chat = "did you see the game last night? the team had a great call at the end"
    assert "nothing to act on" not in score_relevance(chat, "the coach is a genius")[1]


VPN = "VPN connects but I can't reach internal sites"
DNS = "Our domain doesn't resolve after we changed DNS provider"
BEANSTALK = "Our Elastic Beanstalk deploy is stuck at 'updating'"
OPEN_RATE = "Our marketing emails have a low open rate"
VAGUE_STACK = "Stack states are an emergent property of many interacting resources."
ASP = "Our app shows 'HTTP Error 500.30 - ASP.NET Core app failed to start'"
GCP_BILL = "Our GCP bill shows charges for a project we thought was deleted"
DIND = "Can I run Docker inside a Kubernetes pod for our CI builds?"
ZONES = "We're charged for data transfer between availability zones"
HTTP2 = "How do I serve our site over HTTP/2?"


@pytest.mark.parametrize(
    ("ticket", "nothing", "other_ticket", "something"),
    [
        (  # an acronym the ticket already names is its topic, not a setting
            VPN,
            "VPN behaviour comes down to how the pieces line up on a given day.",
            VPN,
            "VPN behaviour comes down to the DNS server it pushes on a given day.",
        ),
        (  # "check back" asks the asker to wait
            DNS,
            "DNS changes always take their time to spread around the world. Check back next week.",
            DNS,
            "DNS changes always take their time to spread. Check the NS records at the registrar.",
        ),
        (  # a lone order of a few words is not a procedure; two short steps are
            BEANSTALK,
            "Beanstalk deploys work for most setups. Check your code.",
            BEANSTALK,
            "Beanstalk deploys work for most setups. Restart it. Then clear the cache.",
        ),
        (  # a ticket that quotes an error code is a support ticket; one with neither is not
            "Our stack is stuck in UPDATE_ROLLBACK_FAILED",
            VAGUE_STACK,
            "Our stack is stuck again",
            VAGUE_STACK,
        ),
        (  # a compound of everyday words is not a setting; "Open rates are" is no step
            OPEN_RATE,
            "Open rates are shaped by countless forces in the ever-changing landscape of email.",
            OPEN_RATE,
            "Open the campaign report and compare the rates of each sending domain.",
        ),
        (  # a step may be a prohibition
            "How can I tell if an email attachment is safe?",
            "Attachments are a matter of judgement and experience in the end.",
            "How can I tell if an email attachment is safe?",
            "Never enable macros in an Office file that came by email.",
        ),
        (  # a token the ticket already names is its topic
            ASP,
            "ASP.NET Core is such an elegant framework for teams.",
            ASP,
            "ASP.NET Core logs why: set stdoutLogEnabled in web.config.",
        ),
        (  # "Sure," opens an answer, not chit-chat
            "Is it okay to use the same SSH key on all our servers?",
            "Sure, one key is easier for everyone.",
            "Is it okay to use the same SSH key on all our servers?",
            "Sure, if you rotate it every 90 days.",
        ),
        (  # "invoices" is the support term "invoice" in another form
            "Where can I find our invoices from last year?",
            "Invoices tell the story of a partnership, chapter by chapter.",
            "Where can I find our invoices from last year?",
            "Open Billing > Invoices and set the date filter to last year.",
        ),
        (
            "Our site got slow after we added a chat widget",
            "Chat widgets weigh on a page, and heavy ones slow the whole site down.",
            "Our site got slow after we added a chat widget",
            "Load the widget's script with the async attribute.",
        ),
        (
            GCP_BILL,
            "Bills have their surprises now and then. Pay it and move on.",
            GCP_BILL,
            "Deleted projects bill for 30 days. See Manage resources > Pending deletion.",
        ),
        (
            DIND,
            "Docker in pods is a long story with many opinions.",
            DIND,
            "Build images with Kaniko in rootless mode instead.",
        ),
        (  # "come and go" is an idiom, not a step
            "Our credit card expired and the payment failed",
            "Cards come and go, but the payment will get through in the end.",
            "Our credit card expired and the payment failed",
            "Cards expire, so go to Billing and add the new one.",
        ),
        (  # a hyphenated word of the ticket's own word and a prefix is its topic
            ZONES,
            "Cross-zone traffic adds up over a month.",
            ZONES,
            "Cross-AZ traffic adds up over a month.",
        ),
        (  # the "2" of the ticket's "HTTP/2" is no figure of the answer's
            HTTP2,
            "HTTP/2 is a leap forward for every site.",
            HTTP2,
            "HTTP/2 needs TLS 1.2 on every site.",
        ),
        (  # a step after "but"
            "Our two services share one database",
            "Each service then depends on the other's tables.",
            "Can two services share one database?",
            "They can, but keep each service to its own schema and database user.",
        ),
        (  # "profile", "paginate" and "cache" open steps
            "Our web app is slow after login",
            "The dashboard probably loads too much at once after login.",
            "Our web app is slow after login",
            "Profile the dashboard, paginate large lists, and cache per-user data.",
        ),
        (  # "filter" and "group" open steps
            "How do we see what our AWS Lambda functions cost?",
            "Lambda costs show up on the bill with the other functions each month.",
            "How do we see what our AWS Lambda functions cost?",
            "In Cost Explorer, filter by service Lambda and group by usage type.",
        ),
        (  # "try" and "print" open steps
            "My PDF won't print",
            "Complex PDFs are heavy for printers and drivers alike.",
            "My PDF won't print",
            "Try Print as image in the advanced print settings of the reader.",
        ),
        (  # "route" opens a step
            "We use a catch-all address for our domain",
            "A catch-all collects a lot of spam sent to made-up addresses.",
            "Can we use a catch-all address for our domain?",
            "You can; route the catch-all address to a shared mailbox with spam filtering.",
        ),
        (  # "trust is" is a noun of a statement, "trust the" a step
            "Emails from our partner go to junk",
            "Junk filtering is a matter of trust, and trust is earned over time.",
            "Emails from our partner go to junk",
            "Junk filtering is a matter of trust, and trust the partner in Safe Senders.",
        ),
        (
            "Our site breaks in Internet Explorer",
            "Internet Explorer is out of support and doesn't run modern JavaScript.",
            "Our site breaks in Internet Explorer",
            "Internet Explorer is out of support. Show its users a notice to switch browsers.",
        ),
    ],
    ids=[
        "acronym-of-the-ticket",
        "check-back",
        "lone-order",
        "error-code",
        "everyday-compound",
        "never-is-a-step",
        "a-token-of-the-ticket",
        "sure-is-not-talk",
        "invoices-is-a-support-term",
        "load-is-a-step",
        "move-on-is-no-step",
        "build-is-a-step",
        "come-and-go-is-no-step",
        "prefix-and-ticket-word",
        "figure-of-the-ticket",
        "but-keep-is-a-step",
        "profile-paginate-cache",
        "filter-and-group",
        "try-and-print",
        "route-is-a-step",
        "trust-is-a-noun",
        "show-is-a-step",
    ],
)
def test_what_is_and_is_not_something_to_act_on(
    ticket: str, nothing: str, other_ticket: str, something: str
) -> None:
    score, reason = score_relevance(ticket, nothing)
    assert score <= 3
    assert "nothing to act on" in reason
    assert "nothing to act on" not in score_relevance(other_ticket, something)[1]


def test_praise_of_the_asker_is_filler_and_a_region_ticket_is_a_support_ticket() -> None:
    ticket = "How do I move a VM to another region in GCP?"
    praise = "Great to hear you're growing across regions, we're cheering you on!"
    steps = "Create a machine image of the VM and a new instance from it in the other region."
    assert relevance_signals(ticket, praise)["no answer"] == 1
    assert score_relevance(ticket, praise)[0] <= 2 < score_relevance(ticket, steps)[0]


@pytest.mark.parametrize(
    ("ticket", "answer", "word"),
    [
        (
            "Our site shows 'Not secure' in Chrome",
            "The page loads over HTTP. Redirect all traffic to HTTPS and fix mixed content.",
            "secure",
        ),
        (
            "I need a new keyboard, mine has sticky keys",
            "Order one in the IT portal under Hardware > Peripherals; return the old one to us.",
            "keyboard",
        ),
        (
            "Can I use my own laptop for work?",
            "Yes, for web apps and email. Enrol it in Intune through the Company Portal app.",
            "laptop",
        ),
        (
            "A phone with our mail on it was stolen",
            "Wipe it from the device console and reset the owner's password.",
            "stolen",
        ),
        (
            "I spilled coffee on my keyboard",
            "Turn it off now and unplug it; do not dry it with heat.",
            "coffee",
        ),
        (
            "Our contact form gets lots of spam",
            "Add a honeypot field and a CAPTCHA such as Turnstile.",
            "spam",
        ),
        (
            "Our SPA shows a 404 on refresh",
            "Serve index.html for unknown paths so the router handles them.",
            "spa",
        ),
        (
            "Can we see which device is using all the bandwidth?",
            "Turn on NetFlow on the firewall and sort the top talkers by bytes.",
            "bandwidth",
        ),
        (
            "Should we enable HSTS on our site?",
            "Yes. Send Strict-Transport-Security: max-age=300 and raise it to a year later.",
            "hsts",
        ),
        (
            "Someone is trying to log into my account",
            "Change your password now and turn on two-factor authentication under Security.",
            "account",
        ),
        (
            "Our external hard drive isn't recognized",
            "Try another cable and USB port, then look for it in Disk Management.",
            "drive",
        ),
        (
            "How do I add a colleague to our workspace?",
            "Go to Settings > Members > Invite, enter their email and choose a role.",
            "colleague",
        ),
        (
            "Should we use a framework for our new web app?",
            "Yes: pick one your team knows, such as Next.js or Django.",
            "framework",
        ),
        (
            "Our DynamoDB table is throttled",
            "Switch to on-demand capacity, or raise the capacity with auto scaling.",
            "throttl",
        ),
        (
            "How often should we run phishing simulations?",
            "Once a month, with short training after a click. Track the click rates over time.",
            "phish",
        ),
        (
            "The meeting room TV doesn't turn on",
            "Check the power strip, then use the remote in the drawer, not the projector one.",
            "room",
        ),
        (
            "We lose internet every time it rains",
            "Water gets into the cable. Have your ISP check the line and the connection box.",
            "internet",
        ),
        (
            "How do we stop our site from being shown in an iframe on other sites?",
            "Send Content-Security-Policy: frame-ancestors 'self' on every page.",
            "iframe",
        ),
        (
            "Can we run tests in parallel across several machines?",
            "Yes: split the suite with a matrix of jobs and merge the reports.",
            "parallel",
        ),
        (
            "How can I see what we'll pay next month?",
            "Billing > Overview shows the upcoming invoice with the current seats.",
            "pay",
        ),
        (
            "How do we handle a lost YubiKey?",
            "Remove the key from the user's account now and let them register a new one.",
            "yubikey",
        ),
        (
            "My computer's clock is wrong",
            "Open Settings > Date & time, turn on 'Set time automatically' and click Sync now.",
            "clock",
        ),
        (
            "Our site breaks when users paste emojis",
            "Use utf8mb4 in MySQL and make sure the page declares charset utf-8.",
            "emoji",
        ),
        (
            "Can we stop people from creating fake accounts?",
            "Add a CAPTCHA such as Turnstile to the sign-up form and block disposable domains.",
            "fake",
        ),
        (
            "Is it OK to let the marketing agency log in with our account?",
            "No. Give them their own accounts with only the access they need; remove them later.",
            "log",
        ),
        (
            "How do I find our customer ID?",
            "It's at the top of every invoice and under Billing > Overview, next to the name.",
            "customer",
        ),
        (
            "Our site loads slowly the first time each morning",
            "Keep one instance running and warm the cache with a scheduled request.",
            "slowly",
        ),
        (
            "How do we make our site accessible?",
            "Run axe, then fix contrast, add alt text and test with a screen reader.",
            "accessible",
        ),
        (
            "Can I get a copy of our contract?",
            "Account owners can download the signed order form under Billing > Documents.",
            "contract",
        ),
        (
            "A flaky test fails one build in ten",
            "Run it 100 times in a loop to reproduce, and quarantine it with a marker.",
            "flaky",
        ),
        (
            "How do we find unused resources that still cost money?",
            "Look for unattached EBS volumes and idle load balancers, and delete them.",
            "unus",  # the stem of "unused"
        ),
        (
            "How do we move a large file share to new hardware?",
            "Copy with robocopy /MIR while the old server is live and point DFS at the new one.",
            "share",
        ),
        (
            "How do we check our SSL certificate's expiry date?",
            "Run openssl x509 -noout -enddate on it, or click the padlock in the browser.",
            "certificate",
        ),
        (
            "Our new access point doesn't get an IP",
            "Check that the DHCP scope for its VLAN has free addresses.",
            "ip",
        ),
        (
            "Our Cloud Run service returns 503 under load",
            "Instances are at their concurrency limit: raise max instances.",
            "load",
        ),
        (
            "How do we check if our email addresses are in a data breach?",
            "Search your domain on Have I Been Pwned's domain search and reset the passwords.",
            "breach",
        ),
    ],
    ids=[
        "not-secure~https",
        "keyboard~peripherals",
        "laptop~intune",
        "stolen~wipe",
        "coffee~unplug",
        "spam~captcha",
        "spa~router",
        "bandwidth~netflow",
        "hsts~strict-transport-security",
        "account~password",
        "drive~disk",
        "colleague~invite",
        "framework~django",
        "throttled~capacity",
        "phishing~training",
        "room~projector",
        "internet~isp",
        "iframe~frame-ancestors",
        "parallel~split",
        "pay~billing",
        "yubikey~key",
        "clock~time",
        "emoji~utf8mb4",
        "fake~captcha",
        "log-in~access",
        "customer~invoice",
        "slowly~cache",
        "accessible~contrast",
        "contract~signed",
        "flaky~quarantine",
        "unused~idle",
        "share~dfs",
        "certificate~openssl",
        "ip~dhcp",
        "load~concurrency",
        "breach~pwned",
    ],
)
def test_a_related_word_takes_up_a_ticket_that_shares_no_word(
    ticket: str, answer: str, word: str
) -> None:
    shared = relevance_signals(ticket, answer).by_name["ticket terms taken up"]
    assert any(e.startswith(f"{word}~") for e in shared.evidence)
    assert score_relevance(ticket, answer)[0] >= 4


def test_a_shared_adjective_of_age_or_size_takes_up_nothing() -> None:
    ticket = "Our Azure Function stopped triggering on new queue messages"
    score, reason = score_relevance(
        ticket, "Pick up your new access card at security on the ground floor."
    )
    assert score <= 3
    assert "takes up none of the ticket's terms" in reason
    assert score_relevance(ticket, "Check the queue name in function.json.")[0] >= 4


def test_a_related_support_term_takes_up_the_ticket_word() -> None:
    related = "Check the spam folder and add our sender address to your allow list."
    unrelated = "Check the garden folder and add our painter address to your guest list."
    found = relevance_signals(RESET, related)
    assert (
        found["ticket terms taken up"]
        > relevance_signals(RESET, unrelated)["ticket terms taken up"]
    )
    assert "email~" in found.by_name["ticket terms taken up"].describe("x")
    assert relevance(RESET, related) > relevance(RESET, unrelated)
    # the ceiling for "nothing of the ticket" is lifted only when something related is there
    assert score_relevance(RESET, related)[0] >= 4
    assert score_relevance(RESET, unrelated)[0] <= 3


def test_one_answer_word_takes_up_one_ticket_word_by_relation() -> None:
    ticket = "Kubernetes pod stuck in CrashLoopBackOff"
    # "restart" relates to both "pod" and "crashloopbackoff": it counts for one of them
    shared = relevance_signals(ticket, "just restart it").by_name["ticket terms taken up"]
    assert [e for e in shared.evidence if "~" in e] == ["pod~restart"]


def test_a_doubled_consonant_before_a_suffix_is_the_same_word() -> None:
    ticket = "How can I see who logged into our workspace?"
    shared = relevance_signals(ticket, "Admins can see it under Admin > Audit log.")
    assert "logg" in shared.by_name["ticket terms taken up"].evidence


def test_a_support_term_in_the_plural_takes_up_its_singular_and_other_words_do_not() -> None:
    # chit-chat's "dogs" ~ "dog" is left to the fitted overlap, as before
    pods = "A deployment's new pods never become Ready"
    shared = relevance_signals(pods, "Run kubectl describe pod to see the probe's error.")
    assert "pods" in shared.by_name["ticket terms taken up"].evidence
    uses = "Google Drive for desktop uses 100 GB of local disk"
    off_topic = "Use point-in-time recovery to restore the database."
    assert relevance_signals(uses, off_topic).by_name["ticket terms taken up"].evidence == ()
    assert score_relevance(uses, off_topic)[0] <= 3
    dogs = relevance_signals("my dogs love the park", "what a cute dog")
    assert dogs.by_name["ticket terms taken up"].evidence == ()


def test_the_words_inside_an_error_code_are_taken_up() -> None:
    ticket = "Website shows NET::ERR_CERT_DATE_INVALID"
    fix = "Renew the expired certificate and reload the web server."
    other = "Renew the expired passport and reload the web server."
    assert relevance(ticket, fix) > relevance(ticket, other)


@pytest.mark.parametrize(
    ("answer", "no_answer"),
    [
        (
            "Approve the payment in your banking app, then retry it under Billing.",
            "Please contact your bank.",
        ),
        (
            "Read the logs with kubectl logs --previous to see why the container exits.",
            "Pods can fail for many reasons. Please refer to the documentation.",
        ),
        (
            "Raise max_connections or put PgBouncer in front of the database.",
            "Thank you for reaching out! We truly value your patience and your feedback.",
        ),
    ],
    ids=["referral", "refer-to-docs", "thanks-only"],
)
def test_an_answer_that_only_refers_waits_or_thanks_fails_relevance(
    answer: str, no_answer: str
) -> None:
    ticket = "Card declined, pod crashing, too many database connections"
    assert relevance_signals(ticket, no_answer)["no answer"] == 1
    assert relevance_signals(ticket, answer)["no answer"] == 0
    score, reason = score_relevance(ticket, no_answer)
    assert score <= 2 and ("no answer" in reason or "evasive" in reason)
    assert score_relevance(ticket, answer)[0] > score


@pytest.mark.parametrize(
    ("ticket", "no_answer", "answer"),
    [
        (  # a hyphenated word of plain English is no setting
            "Can we pin the Node version used in our pipelines?",
            "Version choices come with trade-offs that each team weighs in its own way.",
            "Version choices come with node-version-file: .nvmrc in actions/setup-node.",
        ),
        (  # "a variety of internal considerations": a quantifier, an adjective, a vague noun
            "Why does our query use a sequential scan even with an index?",
            "Query planners make decisions based on a variety of internal considerations.",
            "Query planners pick a sequential scan when the statistics are stale: run ANALYZE.",
        ),
        (  # "your trust means everything to us" is filler, also on a ticket that asks why
            "Why did our invoice go up when we didn't add users?",
            "Invoices are just numbers on a page, but your trust means everything to us!",
            "Usage over the plan's allowance is billed on top, under Overage on the invoice.",
        ),
        (  # "account-level" is the ticket's own word and a plain one: no setting
            "My colleague's account shows my name",
            "Profile information is influenced by multiple account-level factors.",
            "Their profile was copied from yours: fix the name under Admin > Members.",
        ),
        (
            "Why is our OneDrive folder using space on the laptop?",
            "Local storage usage can be influenced by a variety of settings and behaviours.",
            "Files On-Demand is off: turn it on and choose 'Free up space' on big folders.",
        ),
        (
            "Should we use a framework for our new web app?",
            "Framework decisions involve a variety of technical and organisational considerations.",
            "For more than a few pages, yes: pick one your team knows, such as Django.",
        ),
        (  # the words of the vague phrase ("platform-level") are no setting either
            "Our scheduled pipeline didn't run last night",
            "Scheduling behaviour depends on many platform-level factors.",
            "Scheduled workflows stop after 60 days without activity: re-enable it.",
        ),
        (
            "Our DKIM check fails for emails from our helpdesk tool",
            "DKIM is a handshake of trust between servers, and trust is everything!",
            "The helpdesk signs with its own domain: add its DKIM CNAME records.",
        ),
        (
            "Teams keeps signing me out",
            "Teams is all about togetherness, even when it signs you out!",
            "Quit Teams, clear its cache folder and sign in again.",
        ),
        (  # "Update reliability varies": "Update" is the noun of a statement, not a step
            "Windows update keeps failing with the same error",
            "Update reliability varies based on many system factors.",
            "Run the Windows Update troubleshooter, then reset the update components.",
        ),
        (
            "We need to run a GPU workload a few hours a week",
            "GPUs are the rockstars of modern computing!",
            "Start spot GPU instances only while it runs, from a script or AWS Batch.",
        ),
        (  # nothing but an exclamation of praise on a support ticket
            "Why is the invoice total different from the price on your website?",
            "Prices are just the beginning of a beautiful relationship!",
            "Website prices exclude tax; the invoice adds the VAT for your address.",
        ),
        (
            "Should we use an ORM?",
            "ORM adoption reflects a combination of team preferences and technical factors.",
            "Yes for most app code; write raw SQL for reports and check for N+1 queries.",
        ),
        (
            "Messages get stuck in our Outbox",
            "Outbox behaviour can be influenced by numerous client-side factors.",
            "A large attachment blocks the queue: move it to Drafts and send a link.",
        ),
        (
            "Why do we pay for 12 months when we signed up in March?",
            "Billing periods are a construct we all navigate together.",
            "Annual plans are billed for 12 months from the start date, March to March.",
        ),
        (
            "Our ingress certificate isn't renewed by cert-manager",
            "Read cert-manager's docs. All of them.",
            "Describe the Certificate and its Order: the ACME challenge fails.",
        ),
        (
            "My Teams status is stuck on 'Out of office'",
            "Status behaviour depends on various app interactions.",
            "Turn off automatic replies in Outlook and the status clears.",
        ),
        (
            "How do I export all my data?",
            "Data export options depend on your account type.",
            "Profile > Privacy > Export my data sends you a link to a ZIP.",
        ),
        (
            "Can we get a fixed outbound IP for our Azure App Service?",
            "Azure is a world-class cloud platform!",
            "Route outbound traffic through a NAT gateway with a static public IP.",
        ),
        (
            "How do I record a Teams meeting?",
            "Recording options vary by meeting type and settings.",
            "Click More > Record and transcribe > Start recording in the meeting.",
        ),
        (
            "Why are our emails showing 'via sendgrid.net'?",
            "Email display behaviour depends on the recipient's environment.",
            "Gmail shows 'via' when DKIM is not from your domain: set up domain authentication.",
        ),
        (
            "How do I rename a column without breaking the app?",
            "Names matter, and your columns deserve beautiful ones!",
            "Add the new column, write to both, backfill, switch reads, then drop the old one.",
        ),
    ],
    ids=[
        "trade-offs",
        "variety-of-adjective-noun",
        "trust-means-everything",
        "multiple-ticket-word-level-factors",
        "influenced-by-a-variety",
        "variety-of-two-adjectives",
        "many-hyphenated-factors",
        "trust-is-everything",
        "is-all-about",
        "a-noun-that-is-a-step-verb",
        "rockstars",
        "exclaimed-praise",
        "combination-of-four-words-factors",
        "influenced-by-numerous-hyphenated-factors",
        "a-construct",
        "read-the-docs",
        "depends-on-various",
        "account-type",
        "exclaimed-with-a-compound",
        "vary-by",
        "depends-on-the-environment",
        "exclaimed-on-a-database-ticket",
    ],
)
def test_vague_and_filler_answers_in_other_words_are_no_answer(
    ticket: str, no_answer: str, answer: str
) -> None:
    assert relevance_signals(ticket, no_answer)["no answer"] == 1
    assert relevance_signals(ticket, answer)["no answer"] == 0
    assert score_relevance(ticket, no_answer)[0] <= 2 < score_relevance(ticket, answer)[0]


def test_on_topic_praise_without_a_step_is_no_answer_and_with_one_it_is() -> None:
    ticket = "Mailbox is full and I cannot send mail"
    praise = "Email is so important, and we truly value your mailbox."
    step = "Delete old mail from Deleted Items; we truly value your mailbox."
    assert relevance_signals(ticket, praise)["no answer"] == 1
    assert relevance_signals(ticket, step)["no answer"] == 0


def test_a_related_word_in_another_form_counts_and_a_shared_start_alone_does_not() -> None:
    ticket = "Google Cloud billing export to BigQuery is empty"
    # "serverless" (related to "cloud") and "ServerAliveInterval" share only "server"
    off_topic = relevance_signals(ticket, "Set ServerAliveInterval in your SSH config.")
    assert off_topic["ticket terms taken up"] == 0
    assert score_relevance(ticket, "Set ServerAliveInterval in your SSH config.")[0] <= 3
    site = "Some users cannot reach our site from a corporate network"
    fix = "Their proxy or web filter blocks your domain; ask them to check the filter logs."
    garden = "Their hedge or garden fence blocks your view; ask them to check the fence posts."
    assert relevance_signals(site, fix)["ticket terms taken up"] > 0
    assert score_relevance(site, fix)[0] >= 4 > score_relevance(site, garden)[0]


SONAR = "SonarQube quality gate fails the build on old code we did not touch"
BACKUP = "Backup job takes longer than the night window"
MIXED = "Users get logged out; firewall blocks port 8443; disk latency spikes"
SPECIFIC = "Sessions expire depending on the cookie lifetime: set it to 8 hours in the app."


@pytest.mark.parametrize(
    ("ticket", "no_answer", "answer"),
    [
        (  # a shrug that sends the asker to a community
            SONAR,
            "Quality gates are tricky. Maybe ask the SonarQube community.",
            "Set the new-code definition to the previous version so old issues do not count.",
        ),
        (  # praise of the topic is filler
            BACKUP,
            "Backups are the unsung heroes of IT, and we salute everyone who takes them.",
            "Backups are slow when every night is a full one; run incremental backups.",
        ),
        # "it depends on many factors" without a step, or hedged beside a referral
        (
            MIXED,
            "Session behaviour is influenced by numerous factors. Please refer to the "
            "documentation.",
            SPECIFIC,
        ),
        (
            MIXED,
            "Firewall configurations are unique to each environment. We suggest reviewing your "
            "network documentation.",
            SPECIFIC,
        ),
        (
            MIXED,
            "Performance can vary depending on workload and configuration. Monitor and adjust "
            "as appropriate.",
            SPECIFIC,
        ),
        (
            MIXED,
            "Migrations can be risky. We recommend following your change management procedures.",
            SPECIFIC,
        ),
    ],
    ids=[
        "shrug-to-a-community",
        "praise-of-the-topic",
        "numerous-factors",
        "unique-to-each",
        "as-appropriate",
        "can-be-risky-and-referral",
    ],
)
def test_no_answer_beside_an_answer_to_the_same_ticket(
    ticket: str, no_answer: str, answer: str
) -> None:
    assert relevance_signals(ticket, no_answer)["no answer"] == 1
    assert relevance_signals(ticket, answer)["no answer"] == 0
    assert score_relevance(ticket, no_answer)[0] <= 2 < score_relevance(ticket, answer)[0]


def test_can_be_strange_is_a_shrug_even_where_it_sends_nobody_elsewhere() -> None:
    assert relevance_signals(SONAR, "Corporate networks can be strange.")["evasive"] == 1


def test_related_words_take_up_a_laptop_ticket_in_other_words() -> None:
    ticket = "Laptop fan is loud and the battery drains fast"
    fix = "A process is using the CPU. Open Task Manager and switch to the balanced power plan."
    other = "A painter is using the brush. Open the shed and switch to the larger ladder."
    assert relevance_signals(ticket, fix)["ticket terms taken up"] > 0
    assert score_relevance(ticket, fix)[0] >= 4 > score_relevance(ticket, other)[0]


# --- tone: an answer's instructions are not a request's orders ---------------------------


def test_an_imperative_with_an_instruction_is_neutral_and_a_bare_one_confronts() -> None:
    instruction = "Go to Profile > Email and confirm the new address."
    bare = "Look, just leave."
    assert tone_signals(instruction)["confronting imperative"] == 0
    assert tone_signals(bare)["confronting imperative"] == 1
    assert tone(instruction) > tone(bare)
    # "stop" instructs only with a command, setting or path
    assert (
        tone_signals("Stop the wuauserv service, rename C:\\Temp\\cache.")["confronting imperative"]
        == 0
    )
    assert tone_signals("Stop sending these tickets.")["confronting imperative"] == 1


def test_your_names_the_problem_and_you_points_at_the_reader() -> None:
    naming = "Your token expired after 90 days."
    pointing = "You broke it with that change."
    assert tone_signals(naming)["starts with you"] == 0
    assert tone_signals(pointing)["starts with you"] == 1
    # "You" that names what happened to the account is not pointing either
    named = tone_signals("You added four seats on the 12th; they are charged pro rata.")
    assert named["starts with you"] == 0
    assert tone(naming) > tone("Your broke config is the reason.")


def test_stop_in_a_sentence_of_several_steps_is_a_procedure_not_an_order() -> None:
    procedure = "Stop it, empty its data directory and start it again."
    order = "Stop it."
    assert tone_signals(procedure)["confronting imperative"] == 0
    assert tone_signals(order)["confronting imperative"] == 1
    assert tone(procedure) > tone(order)


def test_cancel_and_charged_name_a_billing_event_not_a_mood() -> None:
    billing = "Done: the subscription is set to cancel on the renewal date and is not charged."
    assert tone_signals(billing)["negative words"] == 0
    assert tone_signals("The renewal was a disaster.")["negative words"] > 0
    assert score_tone(billing)[0] >= 4


def test_a_conflict_names_the_problem_and_depending_on_them_is_no_blame() -> None:
    conflict = "A peer dependency conflict. Pin the same npm version in CI, or fix the range."
    assert tone_signals(conflict)["negative words"] == 0
    assert tone_signals("An abandoned replication slot holds old rows.")["negative words"] == 0
    assert tone_signals("Run pg_repack on the worst tables first.")["negative words"] == 0
    assert tone_signals("The links use a domain with a poor reputation.")["negative words"] == 0
    assert tone_signals("Log usage per key so you can block abusers.")["negative words"] == 0
    assert score_tone(conflict)[0] >= 4
    needs = "Let the deploy job depend on them with needs, so a failed test stops it."
    assert tone_signals(needs)["dismissal or blame"] == 0
    assert tone_signals("The tests failed? That's on them.")["dismissal or blame"] >= 1


def test_ignore_it_beside_what_it_is_about_instructs_and_alone_dismisses() -> None:
    instructing = "A hop that answers ICMP slowly is harmless; ignore it."
    dismissing = "Scanners always cry wolf. Ignore it."
    assert tone_signals(instructing)["dismissal or blame"] == 0
    assert tone_signals(dismissing)["dismissal or blame"] >= 1
    assert score_tone(dismissing)[0] <= 3 < score_tone(instructing)[0]


def test_emphasis_lectures_in_a_statement_and_not_in_a_step() -> None:
    step = "Test the port with nc -vz and run mtr to see where packets really get lost."
    assert tone_signals(step)["emphatic factuality"] == 0
    assert tone_signals("Obviously your DNS is broken.")["emphatic factuality"] == 1
    assert score_tone(step)[0] >= 4


def test_look_in_sends_the_reader_somewhere_and_look_alone_confronts() -> None:
    assert (
        tone_signals("Look in spam and in any Promotions tab first.")["confronting imperative"] == 0
    )
    assert tone_signals("Look, it is in the docs.")["confronting imperative"] == 1


def test_a_harsh_verb_that_opens_a_step_and_a_plural_problem_word_are_neutral() -> None:
    step = "Restrict recursion to your own networks (allow-recursion in BIND) to stop attacks."
    assert tone_signals(step)["negative words"] == 0
    assert tone_signals("We restrict people like you.")["negative words"] > 0
    assert score_tone(step)[0] >= 4


def test_permission_is_no_shrug_and_you_know_in_a_clause_is_no_filler() -> None:
    allowed = "In newsletters from companies you know, unsubscribing is fine."
    assert tone_signals(allowed)["dismissal or blame"] == 0
    assert tone_signals(allowed)["filler"] == 0
    assert tone_signals("Slow is fine.")["dismissal or blame"] == 1
    assert tone_signals("It's slow, you know.")["filler"] == 1


def test_advice_against_blaming_names_no_blame() -> None:
    advice = "Track the click rates over time rather than blaming individuals."
    assert tone_signals(advice)["negative words"] == 0
    assert score_tone(advice)[0] >= 4


def test_a_worse_fallback_names_the_problem() -> None:
    fallback = "If UDP is blocked the app falls back to TCP 443, which works with worse quality."
    assert tone_signals(fallback)["negative words"] == 0
    assert score_tone(fallback)[0] >= 4


def test_a_lagging_replica_names_the_problem() -> None:
    lag = "If replay lags, a long query blocks it, so set max_standby_streaming_delay."
    assert tone_signals(lag)["negative words"] == 0
    assert score_tone(lag)[0] >= 4


def test_a_setting_named_forbid_and_missed_runs_name_the_problem() -> None:
    setting = "Set concurrencyPolicy: Forbid so missed runs after a restart don't pile up."
    assert tone_signals(setting)["negative words"] == 0
    assert tone_signals("We forbid that. You missed the point.")["negative words"] > 0
    assert score_tone(setting)[0] >= 4


@pytest.mark.parametrize(
    ("locating", "blaming"),
    [
        ("That's on their side: their mailbox is over its quota.", "That's on them. Not ours."),
        ("EKS needs the node role in aws-auth.", "EKS is fiddly like that."),
        ("Most people move to managed node groups.", "Most people give up and use something."),
    ],
    ids=["their-side", "fiddly-like-that", "give-up"],
)
def test_blame_and_giving_up_dismiss_and_saying_where_the_fault_is_does_not(
    locating: str, blaming: str
) -> None:
    assert tone_signals(locating)["dismissal or blame"] == 0
    assert tone_signals(blaming)["dismissal or blame"] >= 1


def test_a_flag_is_not_slang_and_a_qualifying_whatever_is_no_insult() -> None:
    assert tone_signals("Read journalctl -u docker for the error.")["slang in an answer"] == 0
    assert tone_signals("u should read the log for the error.")["slang in an answer"] >= 1
    qualifying = "Each user counts once, whatever the number of workspaces they belong to."
    assert tone_signals(qualifying)["insult"] == 0
    assert tone_signals("Each user counts once. Whatever.")["insult"] >= 1
    regardless = "Gmail sorts bulk mail there whatever you do."
    assert tone_signals(regardless)["insult"] == 0
    any_plan = "All invoices stay under Billing > Invoices, whatever plan you were on."
    assert tone_signals(any_plan)["insult"] == 0
    assert tone_signals("Sure, do whatever you want with the invoices.")["insult"] >= 1


@pytest.mark.parametrize(
    ("explaining", "shrugging"),
    [
        (
            "That is normal wear for a year of daily use; we replace batteries under 70%.",
            "Batteries wear out, that's normal.",
        ),
        (
            "Use pg_upgrade --link if a few minutes of downtime are fine.",
            "A few minutes of downtime are fine.",
        ),
        (
            "Save form drafts in local storage, so nothing is lost if the session ends anyway.",
            "Sessions end. Users log in again anyway.",
        ),
        (
            "Delete the key on write, and set a TTL so stale entries expire anyway.",
            "Stale entries are part of caching. Users refresh anyway.",
        ),
        (
            "The network path is fine; something on port 443 isn't. Test it with curl -v.",
            "The network path is fine. Test it with curl -v.",
        ),
        (
            "Deleted keys go to the audit log. Make a new one.",
            "Accidents happen. Make a new one.",
        ),
        (
            "Memory is cheap on this plan, so raise the limit to 2 GB.",
            "Buy more RAM. Memory is cheap.",
        ),
        (
            "The Wi-Fi link is fine, so the problem is after it: check that DNS answers.",
            "The Wi-Fi link is fine, so check that DNS answers.",
        ),
    ],
    ids=[
        "normal",
        "fine",
        "anyway",
        "anyway-with-a-purpose",
        "fine-against-what-is-not",
        "accidents-happen",
        "cheap-with-a-purpose",
        "fine-so-the-problem-is-elsewhere",
    ],
)
def test_a_shrug_dismisses_and_an_explanation_or_a_condition_does_not(
    explaining: str, shrugging: str
) -> None:
    assert tone_signals(explaining)["dismissal or blame"] == 0
    assert tone_signals(shrugging)["dismissal or blame"] >= 1
    assert score_tone(shrugging)[0] <= 3 < score_tone(explaining)[0]


def test_you_with_what_you_see_in_the_product_names_it_and_you_with_a_deed_points() -> None:
    assert tone_signals("You see the rooms' calendars without details.")["starts with you"] == 0
    assert tone_signals("You broke the calendars.")["starts with you"] == 1


@pytest.mark.parametrize(
    ("technical", "threat"),
    [
        ("Pod eviction: set ephemeral-storage limits.", "Eviction is coming for you."),
        ("Take a heap dump with jmap -dump:live,file=heap.bin.", "What a dump."),
        ("Install fail2ban to ban repeat offenders on port 22.", "You will be banned."),
        ("Revoke the old certificate so that a stolen key cannot be used.", "My bike was stolen."),
    ],
    ids=["eviction", "dump", "ban", "stolen"],
)
def test_product_words_are_neutral_in_an_instruction_not_in_a_threat(
    technical: str, threat: str
) -> None:
    assert tone_signals(technical)["negative words"] == 0
    assert tone_signals(threat)["negative words"] > 0


def test_a_quoted_label_is_no_dismissal() -> None:
    label = "Close it on other devices, or click 'Edit anyway' on the yellow bar."
    assert tone_signals(label)["dismissal or blame"] == 0
    assert tone_signals("Close it on other devices anyway.")["dismissal or blame"] == 1


def test_telling_others_to_act_instructs_beside_steps_and_dismisses_alone() -> None:
    steps = "Tell them to deny the prompt, reset the password now and check the sign-in logs."
    assert tone_signals(steps)["dismissal or blame"] == 0
    assert tone_signals("Their network. Tell them to fix it.")["dismissal or blame"] == 1
    guests = "Make them sign in on the guest SSID, which has its own VLAN."
    assert tone_signals(guests)["dismissal or blame"] == 0
    assert tone_signals("Guests can wait. Make them use their phones.")["dismissal or blame"] == 1


def test_a_command_may_open_an_answer_in_lower_case_and_a_casual_word_may_not() -> None:
    command = "kubectl describe pod shows the reason under memory or disk pressure."
    assert tone_signals(command)["lower-case start"] == 0
    assert tone_signals(command)["negative words"] == 0
    assert tone_signals("just restart it")["lower-case start"] == 1
    assert score_tone(command)[0] >= 4


def test_sql_keywords_in_an_instruction_are_not_shouting() -> None:
    export = "In psql run \\copy (SELECT * FROM orders) TO 'orders.csv' WITH CSV HEADER."
    assert tone_signals(export)["shouting"] == 0
    assert tone_signals("Add a CHECK (col IS NOT NULL) NOT VALID constraint.")["shouting"] == 0
    grant = "Run GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader;"
    assert tone_signals(grant)["shouting"] == 0
    dockerfile = "Add a user in the Dockerfile (RUN adduser -D app, then USER app)."
    assert tone_signals(dockerfile)["shouting"] == 0
    charset = "Run ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4 on each table."
    assert tone_signals(charset)["shouting"] == 0
    assert tone_signals("Read the docs IS WHAT I SAID TO YOU.")["shouting"] > 0


def test_acronyms_and_code_are_not_shouting_and_capitals_are() -> None:
    assert tone_signals("Publish SPF, DKIM and DMARC records for the domain.")["shouting"] == 0
    assert (
        tone_signals("Run EXPLAIN on the query; the WHERE columns lack an index.")["shouting"] == 0
    )
    assert tone_signals("Check the API base URL and the DNS record.")["shouting"] == 0
    shouting = "READ THE DOCS before asking."
    assert tone_signals(shouting)["shouting"] >= 2
    assert tone(shouting) < tone("Read the docs before asking.")


def test_dismissal_and_blame_lower_the_tone() -> None:
    plain = "Deadlocks come from rows locked in opposite order."
    dismissive = "Deadlocks are normal, not our problem. Deal with it."
    assert tone_signals(dismissive)["dismissal or blame"] >= 2
    assert tone(dismissive) < tone(plain)
    assert score_tone(dismissive)[0] <= 3


def test_slang_in_an_answer_lowers_the_tone() -> None:
    plain = "Restart the pod and read its logs."
    casual = "lol dude restart the pod and read its logs, yolo."
    assert tone_signals(casual)["slang in an answer"] >= 2
    assert tone(casual) < tone(plain)
    # slang counts as slang, not as warmth: "lol" adds no positive word
    assert tone_signals(casual)["positive words"] == tone_signals(plain)["positive words"]


@pytest.mark.parametrize(
    ("plain", "condescending"),
    [
        ("403 means the identity has no role on the vault.", "403 means you didn't. Try harder."),
        ("Heroku's disk is wiped on every restart.", "Everyone knows Heroku does that."),
        ("HTTP/2 needs TLS and ALPN on the proxy.", "Who cares about HTTP/2? Focus on real work."),
        ("Guests need the project shared with them.", "Guests in projects are a bad idea."),
        ("The layer cache is empty on a new runner.", "Caching doesn't matter much."),
        ("Impersonation filters stop most of them.", "Phishing is everywhere. Nothing you can do."),
        ("kubectl describe shows the volume error.", "If you can't read kubectl, quit."),
        ("A new record shows once its TTL runs out.", "DNS always sorts itself out eventually."),
        ("Retry the flaky suite once, then merge.", "Flaky suites are part of life. Merge anyway."),
        ("Stale pages are served from the edge cache.", "Stale pages? Users won't notice."),
        (
            "Yellow means a replica is unassigned.",
            "Yellow means degraded. A junior could tell you.",
        ),
        ("Headsets need a driver update now and then.", "Headsets break sometimes. Type instead."),
        ("Their files move to their manager's drive.", "Their files went with them. Start fresh."),
        ("Beanstalk reports the failing instance.", "Beanstalk works fine for everyone else."),
        ("The Wi-Fi scope is full on Mondays.", "Wi-Fi is always like this on Mondays."),
        ("The form sends a field the WAF rejects.", "Your form must be sending garbage."),
        ("Caching login pages leaks user data.", "Caching login pages is a rookie mistake."),
        ("The first-year discount ended.", "Prices go up. Welcome to the real world."),
        ("Cross-zone traffic is billed per GB.", "Cross-zone is the cost of doing business."),
        ("Random failures come from a flaky mirror.", "Random failures are random."),
        (
            "They run fine once the JVM has warmed up.",
            "They run fine afterwards, what's the problem?",
        ),
        ("Retry the download with --retries 5.", "Press retry and get on with your day."),
        ("Streaming video fills the line at 3pm.", "Tell your people to stop streaming videos."),
        (
            "Give each team its own namespace quota.",
            "If your teams can't share a cluster nicely, quit.",
        ),
        ("A 502 means the proxy can't reach the app.", "502s come and go. Refresh the page."),
        ("The default timeout is 3 seconds; raise it.", "Write faster code and it won't time out."),
        ("The sync client stops at 260 characters.", "Who names files like that? Keep it short."),
        (
            "Banners are off under Settings > Notifications.",
            "Fewer notifications, less stress. Enjoy it.",
        ),
        (
            "Browsers cache the old logo file.",
            "Tell users to clear their cache like normal people.",
        ),
        (
            "Sharing with outsiders needs admin consent.",
            "Sharing is risky, but I guess you don't care.",
        ),
        ("Phones get work mail through the Outlook app.", "Use your work laptop for work. Simple."),
        ("IPv6 needs its own firewall rule.", "IPv6 is a fad. Remove the AAAA record."),
        ("Someone wrote to the replica; make it read-only.", "Someone wrote to it. Fire them."),
        ("Cards and bank transfer work; PayPal doesn't.", "Use a card like everyone else."),
        (
            "One region loses data if the region fails.",
            "One region is enough. AWS doesn't go down.",
        ),
        ("A shared mailbox needs no licence.", "You don't have a support inbox yet? Wow."),
        ("VAT is charged until the number validates.", "Check your number before blaming us."),
        ("Add them under Members > Distribution lists.", "It's a list. Add them. Not hard."),
        (
            "Add a labeled trigger to the workflow.",
            "Labels exist for a reason, try reading about them.",
        ),
        ("Grow the EBS volume and the file system.", "Maybe monitor your disks like a grown-up."),
        ("Delete the pod; the deployment replaces it.", "Restarting pods one by one? Come on."),
        ("One charge is a pre-authorisation.", "Check your bank statement properly first."),
        ("Upload its hash to VirusTotal.", "Just don't download suspicious files, genius."),
        ("Only 'latest' leaves nothing to roll back to.", "Only 'latest'? Bold choice."),
        (
            "Developers who paste code into ChatGPT send it to OpenAI.",
            "Developers who need ChatGPT shouldn't be developers.",
        ),
        (
            "Spread the calls with exponential backoff to stay under the API's rate.",
            "Stop spamming the API and you won't get throttled.",
        ),
        ("Apple sign-in needs the Services ID in the login settings.", "Use a real login."),
        ("Give developers masked copies of the data.", "Just don't give developers data."),
        ("Apple sign-in fails without the Services ID.", "Apple users always have problems."),
        ("The key was deleted on your side.", "Someone on your side messed up."),
        ("Flagged apps belong to two teams.", "Flagged apps belong to lazy teams."),
        (
            "A NAS needs backups: schedule Hyper Backup.",
            "A NAS without backups? Brilliant planning.",
        ),
        (
            "Read the AWS docs on Lambda in a VPC.",
            "Read the AWS docs before you waste my time with this.",
        ),
        ("Forty minutes is long: cache the dependencies.", "Forty minutes? Write fewer tests."),
        ("Profile > Delete account.", "Fine, leave. Profile > Delete account."),
        ("Share the AMI with the account ID.", "Google 'share AMI'. Took me five seconds."),
        ("Set memory limits on the container.", "Set limits. It's in every tutorial."),
        ("The site may be slow: run mtr to it.", "Maybe the site is slow. Ever thought of that?"),
        ("Enrol the iPad in Company Portal.", "iPads aren't for work. Use your laptop."),
        (
            "A file can't be saved while it's locked.",
            "If you can't save, computers aren't your thing.",
        ),
        ("Add nodes or lower the CPU requests.", "Add nodes or stop asking for so much CPU."),
        ("Check the DNS records first.", "Check the DNS records first. Basic stuff."),
        ("The new IdP sends another email.", "That's what happens when you change SSO."),
        ("Add the server to the SPF record.", "Your SPF is broken. Fix your own DNS."),
    ],
    ids=[
        "try-harder",
        "everyone-knows",
        "who-cares",
        "bad-idea",
        "does-not-matter",
        "nothing-you-can-do",
        "if-you-cannot",
        "sorts-itself-out",
        "part-of-life-anyway",
        "will-not-notice",
        "could-tell-you",
        "breaks-sometimes",
        "start-fresh",
        "for-everyone-else",
        "always-like-this",
        "garbage",
        "rookie",
        "real-world",
        "cost-of-doing-business",
        "x-are-x",
        "what-is-the-problem",
        "get-on-with-your-day",
        "tell-your-people",
        "share-nicely",
        "come-and-go",
        "write-faster-code",
        "who-does-that-like-that",
        "enjoy-it",
        "like-normal-people",
        "you-do-not-care",
        "simple",
        "a-fad",
        "fire-them",
        "like-everyone-else",
        "does-not-go-down",
        "wow",
        "blaming-us",
        "not-hard",
        "for-a-reason",
        "like-a-grown-up",
        "come-on",
        "properly",
        "genius",
        "bold-choice",
        "not-one-of-them",
        "stop-and-you-will-not",
        "a-real",
        "just-do-not",
        "always-have-problems",
        "messed-up",
        "lazy",
        "brilliant-after-a-question",
        "waste-my-time",
        "echo-question",
        "fine-leave",
        "google-it",
        "every-tutorial",
        "ever-thought-of",
        "not-for-work",
        "your-thing",
        "stop-asking",
        "basic-stuff",
        "that-is-what-happens",
        "fix-your-own",
    ],
)
def test_condescension_without_a_rude_word_lowers_the_tone(plain: str, condescending: str) -> None:
    found, clean = tone_signals(condescending), tone_signals(plain)
    assert found["dismissal or blame"] + found["insult"] >= 1
    assert clean["dismissal or blame"] + clean["insult"] == 0
    assert tone(condescending) < tone(plain)
    assert score_tone(condescending)[0] <= 3 < score_tone(plain)[0]


def test_a_rule_about_people_who_may_do_something_is_no_insult() -> None:
    assert tone_signals("Users who left shouldn't be able to sign in.")["insult"] == 0
    assert tone_signals("Admins who can't script shouldn't be admins.")["insult"] == 1


def test_laughing_at_the_problem_caps_the_tone_and_a_friendly_lol_in_a_request_does_not() -> None:
    laughing = "outage credits lol, we will add them to your next invoice"
    plain = "We will add the outage credits to your next invoice."
    score, reason = score_tone(laughing)
    assert score <= 3 < score_tone(plain)[0]
    assert 'laughs at the problem ("lol")' in reason
    # in a text that asks for something, "lol" may be friendly: no ceiling
    assert "laughs" not in score_tone("lol thanks, could you send me the invoice?")[1]


@pytest.mark.parametrize(
    ("procedure", "statement"),
    [
        (
            "Clicking means a disk is failing. Check the disk health in the storage manager "
            "and replace the disk before the array degrades.",
            "Clicking means a disk is failing and the array degrades.",
        ),
        (
            "Walk the office with a survey app, then add access points in the weak areas.",
            "Offices have weak areas where access points don't reach.",
        ),
    ],
    ids=["degrades", "weak"],
)
def test_steps_without_disrespect_are_professional_whatever_their_words(
    procedure: str, statement: str
) -> None:
    score, reason = score_tone(procedure)
    assert score >= 4
    assert "at least 4: it gives steps" in reason
    assert score_tone(statement)[0] <= 3
    # the same steps with a jab get no floor
    assert score_tone(procedure.removesuffix(".") + ", genius.")[0] <= 3


def test_an_order_of_one_step_confronts_and_a_procedure_that_opens_with_stop_does_not() -> None:
    procedure = (
        "Stop using and charging it now, as swollen batteries can catch fire. "
        "Bring it to the IT desk in person."
    )
    assert score_tone(procedure)[0] >= 4
    assert score_tone("Stop clicking on shady sites.")[0] <= 3
    assert score_tone("Read the manual instead of guessing. Artifacts are documented.")[0] <= 3


def test_a_negative_word_about_the_reader_keeps_steps_from_the_floor() -> None:
    about_the_office = (
        "Add access points in the weak areas; mesh points work where you can't run cables."
    )
    about_you = "Add access points, since your weak planning left the areas without them."
    assert "at least 4" in score_tone(about_the_office)[1]
    assert "at least 4" not in score_tone(about_you)[1]


def test_an_acronym_of_two_capitals_is_a_term_the_answer_takes_up() -> None:
    lobby = "The TV in the lobby shows no picture"
    with_tv = score_relevance(lobby, "Switch the TV input to HDMI 2 with the remote in the drawer.")
    without = score_relevance(lobby, "Switch the input to HDMI 2 with the remote in the drawer.")
    assert "(tv)" in with_tv[1]
    assert with_tv[0] > without[0]
    # "IT" and "US" are the stopwords "it" and "us", not terms
    assert "takes up 0%" in score_relevance("IT said US staff", "Restart the router.")[1]


def test_a_question_back_asks_and_an_echo_of_the_problem_is_incredulous() -> None:
    asking = "Does it happen on every node? Then check the kernel log."
    assert tone_signals(asking)["dismissal or blame"] == 0
    assert tone_signals("Every node? Then check the kernel log.")["dismissal or blame"] == 1


def test_the_possessive_of_a_name_is_the_name() -> None:
    shared = relevance_signals("Our NAS is full", "Delete old snapshots in the NAS's manager.")
    assert "nas" in shared.by_name["ticket terms taken up"].evidence


def test_an_identifier_in_camel_case_is_taken_up_by_its_words_or_its_initials() -> None:
    ticket = "A PersistentVolumeClaim is stuck"
    by_initials = relevance_signals(ticket, "Run kubectl describe pvc for the event.")
    assert "pvc" in by_initials.by_name["ticket terms taken up"].evidence
    by_words = relevance_signals(ticket, "No volume can be made for the claim yet.")
    assert {"volume", "claim"} <= set(by_words.by_name["ticket terms taken up"].evidence)
    # the words of an answer's identifier are not words of the answer
    setting = relevance_signals("Our cloud bill is high", "Set ServerAliveInterval in the config.")
    assert setting.by_name["ticket terms taken up"].evidence == ()


def test_a_direct_yes_to_a_yes_or_no_question_takes_it_up_without_sharing_a_word() -> None:
    question = "Do we need a penetration test?"
    answer = (
        "once a year and after big changes, if you handle customer data or a customer asks for"
        " it. Scope it to your public apps and cloud, and fix what it finds before the next one."
    )
    assert score_relevance(question, f"Yes, {answer}")[0] >= 4
    assert "takes up none" in score_relevance(question, answer.capitalize())[1]


def test_i_in_lower_case_is_chat_in_an_answer() -> None:
    assert tone_signals("Restore from backup i guess.")["slang in an answer"] == 1
    assert tone_signals("Restore from backup, I guess.")["slang in an answer"] == 0


def test_a_trade_term_and_a_qualified_noun_are_no_insult() -> None:
    gc = "Set the kubelet's image garbage collection thresholds and limit log size."
    assert tone_signals(gc)["insult"] == 0
    assert tone_signals("That config is garbage.")["insult"] == 1
    cron = "WP-Cron publishes it on a visit, so use a real cron job for exact timing."
    assert tone_signals(cron)["dismissal or blame"] == 0
    assert tone_signals("Apple sign-in breaks, use a real login.")["dismissal or blame"] == 1


def test_only_with_answers_a_yes_or_no_question() -> None:
    question = "Can we see if a recipient opened our email?"
    only = "Only with read receipts or a tracking pixel in a newsletter tool, which clients block."
    assert "nothing to act on" not in score_relevance(question, only)[1]
    plain = (
        "That needs read receipts or a tracking pixel in a newsletter tool, which clients block."
    )
    assert "nothing to act on" in score_relevance(question, plain)[1]


def test_if_you_cant_talks_down_and_if_you_cant_open_a_named_page_gives_a_way_round() -> None:
    way_round = "Settings > Members; if you can't open Settings, the admins are listed under Help."
    assert tone_signals(way_round)["dismissal or blame"] == 0
    assert tone_signals("If you can't respond here, leave me a note.")["dismissal or blame"] == 1


def test_hover_opens_a_step() -> None:
    ticket = "Our OneDrive shows files with a red X"
    hover = "Red X means the file can't sync: hover over it to see why. Rename it."
    assert "nothing to act on" not in score_relevance(ticket, hover)[1]
    assert "nothing to act on" in score_relevance(ticket, "Red X means the file can't sync.")[1]


def test_the_initials_of_two_words_name_nothing() -> None:
    shared = relevance_signals("OneDrive is full", "Run od -c on the file.")
    assert shared.by_name["ticket terms taken up"].evidence == ()


def test_the_initials_of_a_name_of_capitalised_words_take_it_up() -> None:
    ticket = "Our site doesn't work in Internet Explorer"
    shared = relevance_signals(ticket, "IE doesn't run modern JavaScript: tell users to use Edge.")
    assert "ie" in shared.by_name["ticket terms taken up"].evidence


def test_the_reason_names_the_words_as_written_not_their_stems() -> None:
    ticket = "Can I see invoices from before we changed plans?"
    reason = score_relevance(ticket, "All invoices stay under Billing > Invoices.")[1]
    assert "(invoices)" in reason and "invoic," not in reason and "(invoic)" not in reason
    related = score_relevance("Find unused resources", "Delete idle load balancers.")[1]
    assert "unused~idle" in related


def test_asking_how_to_do_something_is_a_support_ticket() -> None:
    praise = "Backgrounds let your personality shine!"
    assert score_relevance("How do I change my Teams background?", praise)[0] <= 2
    # chit-chat about backgrounds is not held to an answer
    assert score_relevance("I love your Teams background!", praise)[0] >= 3


def test_the_possessive_of_a_support_term_is_the_term() -> None:
    shared = relevance_signals("Our certificate's chain is wrong", "Renew the certificate.")
    assert "certificate" in shared.by_name["ticket terms taken up"].evidence


def test_an_identifier_of_three_capitalised_parts_is_a_setting_and_a_product_name_is_not() -> None:
    assert technical_tokens("Allow PutLogEvents on SharePoint.") == ["PutLogEvents"]
    ticket = "Our Lambda function's logs don't appear"
    assert not nothing_to_act_on(ticket, "The role needs logs:PutLogEvents for the function.")
    assert nothing_to_act_on(ticket, "The role needs SharePoint for the function.")


def test_the_plural_of_a_related_short_term_takes_up_the_ticket_word() -> None:
    shared = relevance_signals("Our site is blocked", "Check the URLs in the report.")
    assert "site~urls" in shared.by_name["ticket terms taken up"].evidence


@pytest.mark.parametrize(
    ("ticket", "answer", "taken_up"),
    [
        ("Our web app is slow to start", "It's unloaded when idle: turn on Always On.", "start~"),
        ("Chrome says our site is deceptive", "Remove the phishing pages.", "deceptive~phish"),
        ("Which devices are on our network?", "The router's lease table lists them.", "network~"),
        ("Can I get a laptop charger?", "Order it under Hardware > Accessories.", "charger~"),
        ("How do we stop our site showing in iframes?", "Send frame-ancestors 'self'.", "ifram~"),
        ("Postgres says too many clients", "Put PgBouncer in front of it.", "client~"),
        ("Our network goes down when it rains", "Water gets into the cable.", "rain~"),
        ("Our site has known vulnerabilities", "Run a scanner like OWASP ZAP.", "vulnerabiliti~"),
        ("My laptop won't turn on", "Plug in the charger.", "laptop~"),
        ("How do we prepare for ransomware?", "Keep offline backups.", "ransomware~"),
        ("Our site shows old content", "Purge the cached HTML.", "site~"),
        ("Undo the last deployment", "Use Instant Rollback.", "deployment~"),
        ("Skip CI on documentation changes", "Ignore the docs folder.", "documentation~"),
        ("Our rolling update causes errors", "Add a readiness probe.", "roll~"),
        ("Our wired connection is slow", "Check the cable.", "wired~"),
        ("A laptop shows a ransom note", "Call the incident response team.", "ransom~"),
        ("An employee forgot the PIN", "Reset it for the user.", "employee~"),
        ("Our firewall CPU is at 100%", "Exempt backup traffic from inspection.", "firewall~"),
        ("Our contact form returns 500", "Read the stack trace in the log.", "500~"),
        ("Login gets stuck in a redirect loop", "Set X-Forwarded-Proto on the proxy.", "redirect~"),
        ("Who deleted the file?", "Turn on auditing.", "delet~"),
    ],
)
def test_newer_related_terms_take_up_the_ticket_word(
    ticket: str, answer: str, taken_up: str
) -> None:
    evidence = relevance_signals(ticket, answer).by_name["ticket terms taken up"].evidence
    assert any(hit.startswith(taken_up) for hit in evidence), evidence


def test_just_do_it_its_fine_waves_the_ask_away() -> None:
    waved_away = "Just use the default URL, it's fine."
    assert tone(waved_away) < tone("Just use the default URL, it works.")
    assert score_tone(waved_away)[0] <= 3


def test_a_cache_key_is_not_a_restore_of_a_database() -> None:
    # "restore-keys" of a CI cache relates to caching; a database restore has nothing to do
    # with access keys
    shared = relevance_signals("We need to restore the database", "Rotate the access keys.")
    assert shared.by_name["ticket terms taken up"].evidence == ()


def test_saying_nobody_reads_the_page_talks_down() -> None:
    jab = "It's on the pricing page, which nobody reads. I can switch it at renewal."
    plain = "It's on the pricing page, under Currency. I can switch it at renewal."
    assert tone(jab) < tone(plain)
    assert score_tone(jab)[0] <= 3
    # a restrictive clause states a fact about the thing
    fact = "A replication slot that nobody reads holds the WAL. Drop the inactive slot."
    assert score_tone(fact)[0] >= 4


@pytest.mark.parametrize(
    ("condescending", "plain"),
    [
        (
            "Cron has existed since the 70s. Add a schedule trigger.",
            "Cron runs jobs on a timer. Add a schedule trigger.",
        ),
        (
            "Private means private. Create an imagePullSecret in the namespace.",
            "Private registries need credentials. Create an imagePullSecret in the namespace.",
        ),
        (
            "Designing tables without keys? Impressive. Query information_schema.",
            "Tables without keys show up in information_schema. Query it.",
        ),
        ("filter by last login or smth", "Filter by last login in Admin > Users."),
        (
            "Maybe stop installing half the internet. Cache ~/.npm.",
            "Installs fetch every package each time. Cache ~/.npm.",
        ),
        (
            "Aliases have been around forever. Turn on SendFromAliasEnabled.",
            "Aliases need one setting. Turn on SendFromAliasEnabled.",
        ),
        (
            "Test before you ship and you won't need to. Promote the last deployment.",
            "Rollbacks take one click. Promote the last deployment.",
        ),
        (
            "It's in the onboarding email you didn't read. Install the client from the Portal.",
            "It's in the onboarding email you got. Install the client from the Portal.",
        ),
        (
            "Maybe write better queries. Check pg_locks.",
            "Blocking queries show up there. Check pg_locks.",
        ),
        (
            "The firewall has a reason, usually. Add it to the allow list.",
            "The firewall blocks the category. Add it to the allow list.",
        ),
        (
            "Stop sending so many marketing mails. Use another address for receipts.",
            "Marketing mail lowers your standing. Use another address for receipts.",
        ),
        ("Use the laptop's mic then.", "Use the laptop's mic for now."),
        (
            "Running builds on the controller was never a good idea. Set its executors to 0.",
            "Builds on the controller slow its UI down. Set its executors to 0.",
        ),
        (
            "It's shown before you confirm, if you look. Billing > Seats > Add.",
            "It's shown before you confirm. Billing > Seats > Add.",
        ),
        (
            "Coverage needs to know where your code is. Shocking, I know. Set source.",
            "Coverage needs to know where your code is. Set source in .coveragerc.",
        ),
        (
            "Upgrading without reading the notes, I see. Check the kubelet logs.",
            "The kubelet may not have come back. Check the kubelet logs.",
        ),
        (
            "Should have been unique from the start. Find the duplicates with GROUP BY.",
            "Duplicates block the constraint. Find the duplicates with GROUP BY.",
        ),
        ("oops, fix it in billing", "Fix it in Billing > Company details."),
        (
            "Seats don't cancel themselves. Billing > Seats > Remove.",
            "Seats are removed here: Billing > Seats > Remove.",
        ),
        (
            "Printers should have been isolated years ago. Make a VLAN.",
            "Printers belong on their own network. Make a VLAN.",
        ),
        (
            "Docs don't need tests, surely you knew. Add paths-ignore.",
            "Docs don't need tests. Add paths-ignore.",
        ),
        ("Caching is CI 101. Cache ~/.m2.", "Maven fetches every dependency. Cache ~/.m2."),
        (
            "Renaming in production without a plan, bold. Add the new column first.",
            "Renaming in place breaks the app. Add the new column first.",
        ),
        (
            "It's on the pricing page like everything else. Apply under Billing > Discounts.",
            "It's on the pricing page. Apply under Billing > Discounts.",
        ),
        (
            "Read the router's manual. Turn on failback.",
            "Failback is off by default. Turn on failback.",
        ),
        (
            "Leaking versions is a beginner mistake. Set server_tokens off.",
            "Leaking versions helps attackers. Set server_tokens off.",
        ),
        (
            "It's under Billing, unsurprisingly. Company details > Address.",
            "It's under Billing. Company details > Address.",
        ),
        (
            "Fancy signatures break, who knew. Use a simple HTML one.",
            "Image-heavy signatures break on phones. Use a simple HTML one.",
        ),
        (
            "500s are just part of updates. Roll back the release.",
            "500s after an update come from the release. Roll back the release.",
        ),
        ("Regions aren't a buffet. Use an SCP.", "Regions are limited by policy. Use an SCP."),
        ("Admins without MFA in 2026, wow. Require it now.", "Admins need MFA. Require it now."),
        (
            "Nobody runs mail servers anymore. Use an email API.",
            "A mail server isn't needed. Use an email API.",
        ),
    ],
)
def test_jabs_blame_and_shrugs_from_later_sets_lower_the_tone(
    condescending: str, plain: str
) -> None:
    assert tone(condescending) < tone(plain)
    assert score_tone(condescending)[0] <= 3 < score_tone(plain)[0]


def test_a_decade_is_no_setting_and_a_check_after_a_question_is_no_sarcasm() -> None:
    assert technical_tokens("It has run since the 70s.") == []
    assert score_tone("Is the VPN connected? Good. Then open the share again.")[0] >= 4
    # "if you look" that guides, not one that jabs
    assert score_tone("If you look at the logs, you will see the error. Check the logs.")[0] >= 4


def test_a_direct_yes_with_a_step_answers_a_yes_or_no_ticket_in_other_words() -> None:
    ticket = "Can I get a standing desk?"
    how = "order it in the portal under Workplace > Ergonomics; it takes two weeks."
    assert score_relevance(ticket, f"Yes: {how}")[0] >= 4
    assert "answers the yes-or-no question" in score_relevance(ticket, f"Yes: {how}")[1]
    assert score_relevance(ticket, how.capitalize())[0] <= 3
    # a yes that only sends the asker elsewhere gets no floor
    assert score_relevance(ticket, "Yes, contact support and open a ticket.")[0] <= 2


def test_you_wont_need_to_before_a_verb_is_advice() -> None:
    advice = "Add a cache and you won't need to download every package. Cache ~/.npm."
    assert score_tone(advice)[0] >= 4


def test_the_singular_of_a_ticket_word_is_no_setting_of_the_answer() -> None:
    ticket = "Our auto-replies go to every newsletter"
    shrug = "Auto-reply behaviour can be unpredictable."
    assert concrete_tokens(shrug, ticket) == []
    assert score_relevance(ticket, shrug)[0] <= 3


def test_saying_that_behaviour_differs_between_devices_is_vague() -> None:
    ticket = "My Teams notifications don't show"
    assert score_relevance(ticket, "Notification behaviour differs between devices.")[0] <= 3
    fix = "Turn on notifications for Teams in Settings > System > Notifications."
    assert score_relevance(ticket, fix)[0] >= 4


def test_anyway_after_and_adds_a_step_and_alone_shrugs() -> None:
    steps = "Add an initContainer that waits for the port, and make the app retry anyway."
    assert score_tone(steps)[0] >= 4
    assert score_tone("The check fails on old runners. Merge anyway.")[0] <= 3


def test_exclude_and_convert_open_steps_and_a_hyphenated_noun_does_not() -> None:
    ticket = "Our VPN is slow for video calls"
    assert not nothing_to_act_on(ticket, "Exclude Teams traffic from the tunnel.")
    assert not nothing_to_act_on(ticket, "Convert the profile to split tunnelling.")
    shrug = "Sign-in issues can stem from many sources."
    assert score_relevance("A user's email changed and they can't sign in", shrug)[0] <= 2


def test_a_command_line_in_lower_case_is_something_to_act_on_and_casual_words_are_not() -> None:
    ticket = "How do we check a cluster's certificate expiry?"
    assert not nothing_to_act_on(ticket, "kubeadm certs check-expiration on a control node.")
    assert nothing_to_act_on("Our MySQL tables break emojis", "emojis r hard")


def test_a_services_key_is_a_setting_and_denies_names_what_a_policy_does() -> None:
    policy = "A policy that denies actions when aws:RequestedRegion is not in your list."
    assert "aws:RequestedRegion" in technical_tokens(policy)
    assert not nothing_to_act_on("How do we limit the regions our team can use?", policy)
    assert score_tone(policy)[0] >= 4
