package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.redlock.RedlockKeys;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import redis.clients.jedis.util.JedisClusterCRC16;

/** The slot routing of {@link ClusterRedisNode}: every key of every script in the lock's slot. */
@Timeout(10)
class ClusterRedisNodeTest {
    private static final RedlockKeys KEYS = RedlockKeys.withPrefix("app:");

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void acquireExtendAndReleaseTouchOnlyTheLocksSlotAndDistinctNamesSpread() {
        Set<Integer> slots = new HashSet<>();
        for (String name : new String[] {"orders", "a}b", "{x}", "payments:42", "ünïcode"}) {
            byte[][] acquire = {
                bytes(KEYS.lock(name)), bytes(KEYS.token(name)), bytes(KEYS.leaseExpiries()), bytes(KEYS.leaseLengths())
            };
            byte[][] release = {bytes(KEYS.lock(name)), bytes(KEYS.leaseExpiries()), bytes(KEYS.leaseLengths())};
            // an extension is queued with the lock key alone: extend.lua also updates the two records
            byte[][] extend = {bytes(KEYS.lock(name))};
            int slot = JedisClusterCRC16.getSlot(KEYS.lock(name));
            slots.add(slot);
            for (byte[][] keys : new byte[][][] {
                ClusterRedisNode.inSlot(Script.ACQUIRE, acquire),
                ClusterRedisNode.inSlot(Script.RELEASE, release),
                ClusterRedisNode.inSlot(Script.EXTEND, extend)
            }) {
                assertThat(Arrays.stream(keys).mapToInt(JedisClusterCRC16::getSlot))
                        .as("slots of the keys of %s", name)
                        .containsOnly(slot);
                assertThat(new String(keys[keys.length - 2], StandardCharsets.UTF_8))
                        .isEqualTo(KEYS.lock(name) + ":lease-expiries");
                assertThat(new String(keys[keys.length - 1], StandardCharsets.UTF_8))
                        .isEqualTo(KEYS.lock(name) + ":lease-lengths");
            }
            byte[][] extendKeys = ClusterRedisNode.inSlot(Script.EXTEND, extend);
            assertThat(extendKeys.length)
                    .as("the extension's keys: lock key, then the two records")
                    .isEqualTo(3);
            assertThat(extendKeys[0]).isEqualTo(extend[0]);
            assertThat(ClusterRedisNode.slotOf(acquire)).isEqualTo(slot);
        }
        assertThat(slots).as("five names, five slots").hasSize(5);
    }

    @Test
    void theStatusProbeHasAKeyInEverySlot() {
        for (int slot = 0; slot < ClusterRedisNode.SLOTS; slot++) {
            assertThat(JedisClusterCRC16.getSlot(ClusterRedisNode.keyInSlot(slot)))
                    .as("slot of the probe key for slot %d", slot)
                    .isEqualTo(slot);
        }
    }

    @Test
    void scriptsWithoutRecordsAreSentAsTheyAre() {
        byte[][] raise = {bytes(KEYS.token("orders"))};
        assertThat(ClusterRedisNode.inSlot(Script.RAISE_TOKEN, raise)).isSameAs(raise);
        assertThat(ClusterRedisNode.slotOf(new byte[0][]))
                .as("the keyless probe")
                .isZero();
    }
}
