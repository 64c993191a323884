package load

import tea "github.com/charmbracelet/bubbletea"

func sizeMsg() tea.Msg { return tea.WindowSizeMsg{Width: 200, Height: 60} }
