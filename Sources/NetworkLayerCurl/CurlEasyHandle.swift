import NetworkLayerSupport

#if os(Linux)
    import NetworkLayerCore
    import CCurl

    /// A libcurl easy handle with its error buffer, reused from one transfer to the next by the event loop.
    ///
    /// Only whoever drives its loop uses it; ``cleanUp()`` frees both, and whoever drives the loop calls it exactly once per handle.
    final class CurlEasyHandle {
        let pointer: UnsafeMutableRawPointer
        let errorBuffer: UnsafeMutablePointer<CChar>

        init?() {
            guard let pointer = nl_curl_easy_init() else { return nil }
            self.pointer = pointer
            errorBuffer = .allocate(capacity: Int(NLCURL_ERROR_SIZE))
            errorBuffer.initialize(repeating: 0, count: Int(NLCURL_ERROR_SIZE))
        }

        /// Whether the options set since the last ``reset()`` are those of a plain GET that ended well on its first
        /// attempt, which the next plain GET may keep.
        var holdsPlainGETOptions = false

        /// Forgets every option of the last transfer; connections stay in the multi handle's cache.
        func reset() {
            nl_curl_easy_reset(pointer)
            holdsPlainGETOptions = false
            clearError()
        }

        /// Empties the error buffer, for a transfer that keeps the last one's options.
        func clearError() {
            errorBuffer[0] = 0
        }

        func cleanUp() {
            nl_curl_easy_cleanup(pointer)
            errorBuffer.deallocate()
        }

        func set(_ option: Int, _ value: Int) {
            _ = nl_curl_easy_setopt_long(pointer, Int32(option), value)
        }

        func set(_ option: Int, _ value: Int64) {
            _ = nl_curl_easy_setopt_offset(pointer, Int32(option), value)
        }

        /// Sets a text option; libcurl copies the text.
        func set(_ option: Int, _ value: String) {
            _ = nl_curl_easy_setopt_pointer(pointer, Int32(option), value)
        }

        /// Sets a blob option to bytes libcurl does not copy: they must outlive the transfer.
        func setBlob(_ option: Int, _ bytes: UnsafeRawBufferPointer) {
            _ = nl_curl_easy_setopt_blob(pointer, Int32(option), bytes.baseAddress, bytes.count)
        }

        func setPointer(_ option: Int, _ value: UnsafeRawPointer?) {
            _ = nl_curl_easy_setopt_pointer(pointer, Int32(option), value)
        }

        func setCallback(
            _ option: Int,
            _ callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int, Int, UnsafeMutableRawPointer?) -> Int
        ) {
            _ = nl_curl_easy_setopt_callback(pointer, Int32(option), callback)
        }
    }
#endif
