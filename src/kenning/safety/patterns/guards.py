"""Protections switched off by a command: what watches, records or fences the machine.

An attack that means to stay unseen first stops what would see it: the endpoint agent and the
antivirus (``systemctl disable --now falcon-sensor``, ``Set-MpPreference
-DisableRealtimeMonitoring $true``), the audit trail (``aws cloudtrail stop-logging``,
``auditctl -e 0``, ``unset HISTFILE``), the fence around it (a security group open to the whole
internet on every port, a branch protection deleted, a merge that overrides review), the
mandatory access control (``setenforce 0``); or it hands over what guards access (the SSH agent's
socket made world-readable, a system file locked against repair with ``chattr +i``). These rows
read the commands and settings that do it, in any language's text around them. Naming them in a
checklist (`` `Set-MpPreference -DisableRealtimeMonitoring` turns Defender off ``) without the
value that switches, or a rule against them ("never open 0.0.0.0/0"), passes.
"""

from __future__ import annotations

from typing import Final

from kenning.safety.patterns.schema import MEMORY, Pattern, ascii_regex

# Endpoint, audit and integrity agents by their service names.
_SECURITY_AGENT: Final = r"""(?:falco|auditd|falcon-sensor|osqueryd?|wazuh-agent|ossec|clamav-daemon
    |clamav-freshclam|clamd|sentinelone|sentinel-agent|cbagent|cbdaemon|elastic-agent|auditbeat
    |sysmon|aide|tripwire|mdatp|crowdstrike|cylancesvc|qualys-cloud-agent|tenable\w*|nessusagent)"""

PATTERNS: Final[tuple[Pattern, ...]] = (
    # WHY: with the watchers off, whatever runs next goes unseen; `systemctl restart auditd` or
    # naming the Defender cmdlets in a warning passes.
    Pattern(
        pattern_id="protection_switched_off",
        category="destructive",
        scopes=MEMORY,
        reason="switches off a protection (endpoint security, antivirus, audit logs, the "
        "firewall, branch protection) so what follows goes unseen or unguarded",
        negatable=True,
        regex=ascii_regex(rf"""
            # the endpoint agent or the antivirus stopped: "systemctl disable --now falco auditd",
            # "Set-MpPreference -DisableRealtimeMonitoring $true", "Add-MpPreference
            # -ExclusionPath C:\", "Stop-Service WinDefend", "sc config WinDefend start= disabled"
            \bsystemctl\s+(?:stop|disable|mask|kill)\s+(?:--now\s+)?(?:[\w@.-]+\s+){{0,4}}?
            {_SECURITY_AGENT}\b
          | \bservice\s+{_SECURITY_AGENT}\s+stop\b
          | \bSet-MpPreference\b[^\n]{{0,200}}?-Disable\w+\s+\$?(?:true|1)\b
          | \bAdd-MpPreference\b[^\n]{{0,40}}?-Exclusion(?:Path|Process|Extension)\s+["']?
            (?:[A-Za-z]:\\?["']?(?=\s|$|;)|\*|\$env:\w+|%\w+%)
          | \b(?:Stop-Service|Set-Service)\b[^\n]{{0,60}}?\bWinDefend\b
          | \bsc(?:\.exe)?\s+(?:stop|config|delete)\s+WinDefend\b
          | \bsetenforce\s+0\b | \bauditctl\s+-e\s*0\b | \baa-teardown\b
            # the trail cut: "aws cloudtrail stop-logging", "... delete-trail", GuardDuty off
          | \baws\s+cloudtrail\s+(?:stop-logging|delete-trail)\b
          | \baws\s+guardduty\s+(?:delete-detector|update-detector\b[^\n]{{0,100}}?--no-enable)\b
          | \baws\s+configservice\s+(?:stop-configuration-recorder|delete-configuration-recorder)\b
          | \bgcloud\s+logging\s+sinks\s+delete\b | \baz\s+monitor\s+diagnostic-settings\s+delete\b
            # the shell's own record of what ran
          | \bunset\s+HISTFILE\b | \bHISTFILE=/dev/null\b | \bexport\s+HISTSIZE=0\b
          | \bhistory\s+-c\b | \bset\s+\+o\s+history\b
            # the fence opened to everyone on every port: all protocols, or ports 0-65535, from
            # 0.0.0.0/0 ("from_port = 0 ... to_port = 65535 ... cidr_blocks = ["0.0.0.0/0"]")
          | \bfrom_port\s*=\s*0\b[^\n]*\n(?:[^\n]*\n){{0,3}}?[^\n]*\bto_port\s*=\s*65535\b
            [^\n]*\n(?:[^\n]*\n){{0,4}}?[^\n]*0\.0\.0\.0/0
          | \b(?:--protocol\s+(?:all|-1)|--port\s+0-65535|IpProtocol=-1)\b[^\n]{{0,200}}?
            0\.0\.0\.0/0
          | 0\.0\.0\.0/0[^\n]{{0,200}}?(?:--protocol\s+(?:all|-1)|--port\s+0-65535|IpProtocol=-1)\b
            # review and branch protection bypassed
          | \bgh\s+api\b[^\n]{{0,40}}?-X\s*DELETE\b[^\n]{{0,120}}?/protection\b
          | \bgh\s+pr\s+merge\b[^\n]{{0,80}}?--admin\b
        """),
    ),
    # WHY: the SSH agent's socket opened to others lets them sign in as the user anywhere; a
    # system file made immutable cannot be repaired (resolv.conf pinned to a chosen server).
    Pattern(
        pattern_id="access_handed_over",
        category="persistence",
        scopes=MEMORY,
        reason="hands over access that lasts: the SSH agent shared with others, agent "
        "forwarding to every host, or a system file locked against repair (persistence)",
        negatable=True,
        regex=ascii_regex(r"""
            # "chmod 777 $SSH_AUTH_SOCK", "setfacl -m u:bob:rw $SSH_AUTH_SOCK"
            \b(?:chmod|chown|setfacl)\b[^\n]{0,60}?\$\{?SSH_AUTH_SOCK\b
          | \bsocat\b[^\n]{0,120}?\$\{?SSH_AUTH_SOCK\b
            # agent forwarding for every host in an ssh config
          | ^[ \t]*Host[ \t]+\*[ \t]*\n(?:[ \t]+[^\n]*\n){0,6}?[ \t]+ForwardAgent[ \t]+yes\b
            # a system file locked: "chattr +i /etc/resolv.conf"
          | \bchattr\s+\+i\s+["']?/etc/(?:resolv\.conf|hosts|passwd|shadow|group|sudoers\S*
            |ssh/\S+|crontab|profile|environment|ld\.so\.preload)
        """),
    ),
)
