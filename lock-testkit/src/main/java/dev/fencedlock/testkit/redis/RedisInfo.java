package dev.fencedlock.testkit.redis;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Redis node's {@code INFO server} reply. Its uptime decides when a Redlock client that
 * has never seen the node counts it toward a quorum: only once the uptime has passed the restart
 * quarantine. Stateless and thread-safe.
 */
public final class RedisInfo {
    private static final Pattern UPTIME = Pattern.compile("(?m)^uptime_in_seconds:(\\d+)\\s*$");

    private RedisInfo() {}

    /**
     * {@code uptime_in_seconds} from an {@code INFO server} reply.
     *
     * @throws IllegalArgumentException if the reply has none, with the reply
     */
    public static long uptimeSeconds(String infoServer) {
        Matcher matcher = UPTIME.matcher(infoServer == null ? "" : infoServer);
        if (!matcher.find()) {
            throw new IllegalArgumentException("no uptime_in_seconds in: " + infoServer);
        }
        return Long.parseLong(matcher.group(1));
    }

    /**
     * The uptime a node must report before a client that has never seen it counts it, with a
     * margin: Redis reports whole seconds, and as the difference of two truncated wall-clock
     * seconds, which can overstate the real uptime by up to a second.
     */
    public static long uptimeNeededSeconds(Duration quarantine) {
        return (quarantine.toMillis() + 999) / 1000 + 2;
    }
}
