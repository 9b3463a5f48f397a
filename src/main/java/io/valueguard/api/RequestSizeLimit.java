package io.valueguard.api;

import java.io.IOException;

import io.valueguard.config.ValueGuardProperties;
import io.valueguard.routing.ProblemTypes;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses request bodies larger than {@code valueguard.limits.max-request-bytes} with a 413 problem body, before they
 * are read whole: at once when {@code Content-Length} says so, and otherwise as soon as a chunked body passes the
 * limit while it is read ({@link TooLarge}, which {@link ProblemHandler} answers).
 */
class RequestSizeLimit extends OncePerRequestFilter {

	private final long maxBytes;

	RequestSizeLimit(ValueGuardProperties properties) {
		this.maxBytes = properties.limits().maxRequestBytes().toBytes();
	}

	/** A body read past the limit. */
	static final class TooLarge extends IOException {

		TooLarge(long maxBytes) {
			super(detail(maxBytes));
		}

	}

	static String detail(long maxBytes) {
		return "The request body is larger than " + maxBytes + " bytes (valueguard.limits.max-request-bytes)";
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (request.getContentLengthLong() > this.maxBytes) {
			// the rest of the body is not read: the connection cannot carry another request
			response.setHeader("Connection", "close");
			ProblemTypes.write(response, 413, "payload-too-large", "Payload too large", detail(this.maxBytes));
			return;
		}
		chain.doFilter(request.getContentLengthLong() < 0 ? new Bounded(request, this.maxBytes) : request, response);
	}

	/** A request whose body stops with {@link TooLarge} once more than the limit was read. */
	private static final class Bounded extends HttpServletRequestWrapper {

		private final long maxBytes;

		private ServletInputStream bounded;

		Bounded(HttpServletRequest request, long maxBytes) {
			super(request);
			this.maxBytes = maxBytes;
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			if (this.bounded == null) {
				ServletInputStream in = super.getInputStream();
				this.bounded = new ServletInputStream() {

					private long read;

					@Override
					public int read() throws IOException {
						int b = in.read();
						if (b >= 0) {
							count(1);
						}
						return b;
					}

					@Override
					public int read(byte[] buffer, int offset, int length) throws IOException {
						int n = in.read(buffer, offset, length);
						if (n > 0) {
							count(n);
						}
						return n;
					}

					private void count(int n) throws TooLarge {
						this.read += n;
						if (this.read > Bounded.this.maxBytes) {
							throw new TooLarge(Bounded.this.maxBytes);
						}
					}

					@Override
					public boolean isFinished() {
						return in.isFinished();
					}

					@Override
					public boolean isReady() {
						return in.isReady();
					}

					@Override
					public void setReadListener(ReadListener listener) {
						in.setReadListener(listener);
					}

				};
			}
			return this.bounded;
		}

	}

}
