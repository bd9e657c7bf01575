package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fencedlock.redlock.RedisNodeAddress;
import dev.fencedlock.redlock.RedlockSettings;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.RedisCredentials;

class JedisRedisNodeTest {

    @Test
    void aRedissUriGivesTlsCredentialsDatabaseAndTheNodeTimeout() {
        RedisNodeAddress address =
                RedisNodeAddress.parse(RedlockSettings.NODES, "rediss://app:s%40cret@cache-1:6380/4");
        JedisClientConfig config = JedisRedisNode.clientConfig(address, 50, null);
        RedisCredentials credentials = config.getCredentialsProvider().get();
        assertThat(credentials.getUser()).isEqualTo("app");
        assertThat(new String(credentials.getPassword())).isEqualTo("s@cret");
        assertThat(config.getDatabase()).isEqualTo(4);
        assertThat(config.getSslOptions()).as("TLS with full verification").isNotNull();
        assertThat(config.getConnectionTimeoutMillis()).isEqualTo(50);
        assertThat(config.getSocketTimeoutMillis()).isEqualTo(50);
    }

    @Test
    void aPlainUriWithoutCredentialsGivesNeither() {
        RedisNodeAddress address = RedisNodeAddress.parse(RedlockSettings.NODES, "redis://cache-2:6379");
        JedisClientConfig config = JedisRedisNode.clientConfig(address, 1, null);
        assertThat(config.getSslOptions()).isNull();
        assertThat(config.isSsl()).isFalse();
        assertThat(config.getCredentialsProvider().get().getPassword()).isNull();
        assertThat(config.getDatabase()).isZero();
    }
}
