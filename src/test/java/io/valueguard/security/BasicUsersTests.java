package io.valueguard.security;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.valueguard.config.SecurityProperties;
import org.junit.jupiter.api.Test;

import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Basic users: roles become the configured authorities, a verified credential is checked by bcrypt once per period
 * (also when many requests bring it at once), a wrong one every time.
 */
class BasicUsersTests {

	private static final BCryptPasswordEncoder BCRYPT = new BCryptPasswordEncoder(4);

	private final AtomicInteger checks = new AtomicInteger();

	private final CountDownLatch checking = new CountDownLatch(1);

	private final CountDownLatch release = new CountDownLatch(1);

	/** bcrypt, counting its checks; the first waits for {@link #release}, as a slow bcrypt would keep it busy. */
	private final PasswordEncoder countingBcrypt = new PasswordEncoder() {

		@Override
		public String encode(CharSequence password) {
			return BCRYPT.encode(password);
		}

		@Override
		public boolean matches(CharSequence password, String hash) {
			BasicUsersTests.this.checks.incrementAndGet();
			BasicUsersTests.this.checking.countDown();
			try {
				BasicUsersTests.this.release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return BCRYPT.matches(password, hash);
		}

	};

	private final BasicUsers users = new BasicUsers(new SecurityProperties(false,
			new SecurityProperties.Authorities("SCOPE_valueguard.read", "SCOPE_valueguard.write",
					"SCOPE_valueguard.admin"),
			null, List.of(new SecurityProperties.User("alice", BCRYPT.encode("secret"),
					Set.of(SecurityProperties.Role.READ))),
			null, Duration.ofSeconds(30), true, Duration.ofMinutes(1), Duration.ofMinutes(5)), this.countingBcrypt);

	@Test
	void shouldCheckAKnownCredentialOnceForConcurrentRequests() throws Exception {
		ExecutorService requests = Executors.newFixedThreadPool(8);
		try {
			List<Future<Authentication>> answers = new ArrayList<>();
			answers.add(requests.submit(() -> this.users.authenticate(credential("secret"))));
			this.checking.await();
			for (int i = 1; i < 8; i++) {
				answers.add(requests.submit(() -> this.users.authenticate(credential("secret"))));
			}
			Thread.sleep(100);
			this.release.countDown();
			for (Future<Authentication> answer : answers) {
				assertThat(answer.get(10, TimeUnit.SECONDS).getAuthorities()).map(GrantedAuthority::getAuthority)
					.containsExactly("SCOPE_valueguard.read");
			}
		}
		finally {
			requests.shutdownNow();
		}
		assertThat(this.checks).hasValue(1);
	}

	@Test
	void shouldCheckAWrongPasswordEveryTime() {
		this.release.countDown();
		for (int i = 0; i < 3; i++) {
			assertThatExceptionOfType(BadCredentialsException.class)
				.isThrownBy(() -> this.users.authenticate(credential("guess")));
		}
		assertThat(this.checks).hasValue(3);
	}

	private static Authentication credential(String password) {
		return UsernamePasswordAuthenticationToken.unauthenticated("alice", password);
	}

}
